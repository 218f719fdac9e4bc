import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { clickhouseExportSource, type PersonPropertiesLookup } from '../../../src/adapters/clickhouse/export-source';
import { clickhouseFoldedAnalytics } from '../../../src/adapters/clickhouse/folded';
import type { ClickHouseTarget } from './clickhouse-engine';

const noPersons: PersonPropertiesLookup = async () => new Map();
const HOUR = '2024-01-15T10:00:00.000Z';
const exp = (hogql_query: string | null): BatchExportRow => ({
  id: 'e', seq: 1, project_id: 1, name: 'x', model: 'events', destination_type: 'File', destination_config: {},
  interval: 'hour', paused: false, created_at: HOUR, created_by: null, last_updated_at: HOUR, last_paused_at: null,
  start_at: null, end_at: null, hogql_query, schema: null, deleted: false, deleted_at: null,
});
const run: RunRow = {
  id: 'r', seq: 1, batch_export_id: 'e', project_id: 1, backfill_id: null, status: 'Running',
  records_completed: null, records_total_count: null, bytes_exported: null, latest_error: null,
  data_interval_start: HOUR, data_interval_end: '2024-01-15T11:00:00.000Z', scheduled_at: HOUR, created_at: HOUR,
  finished_at: null, last_updated_at: HOUR, attempt: 1, retry_at: null, lease_until: null,
};

/** What the ClickHouse source does beside the contract: missing pieces fail, a hogql run cleans up after itself. */
export function clickhouseSourceChecks(name: string, target: ClickHouseTarget): void {
  describe(`${name} export source, beyond the contract`, () => {
    it('fails a run whose analytics tables are missing, naming the table', async () => {
      const database = `chexport_${randomBytes(6).toString('hex')}`;
      await target.admin.serverCommand(`CREATE DATABASE ${database}`);
      const client = target.connect(database);
      try {
        await expect(clickhouseExportSource(client, noPersons)(exp(null), run)).rejects.toThrow(/events/);
      } finally {
        await target.admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`);
        await client.close?.();
      }
    });

    it("drops a hogql run's person table when the run closes", async () => {
      const database = `chexport_${randomBytes(6).toString('hex')}`;
      const client = target.connect(database);
      const tables = async () => (await client.rows<{ name: string }>(`SELECT name FROM system.tables WHERE database = '${database}' AND name LIKE 'export_persons_%'`)).length;
      try {
        await clickhouseFoldedAnalytics(client).open();
        const rows = await clickhouseExportSource(client, noPersons)(exp('SELECT event, person_properties.plan AS plan FROM events'), run);
        expect(rows.total).toBe(0);
        expect(await tables()).toBe(1);
        await rows.close();
        expect(await tables()).toBe(0);
      } finally {
        await target.admin.serverCommand(`DROP DATABASE IF EXISTS ${database}`);
        await client.close?.();
      }
    });
  });
}
