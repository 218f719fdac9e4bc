import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { clickhouseExportSource, type PersonPropertiesLookup } from '../../../src/adapters/clickhouse/export-source';
import { clickhouseFoldedAnalytics } from '../../../src/adapters/clickhouse/folded';
import type { AnalyticsEventRow } from '../../../src/store/analytics';
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

/** One event in the run's hour (backfill: by event time). */
const row: AnalyticsEventRow = {
  uuid: '', projectId: 1, event: '$pageview', distinctId: 'd', personId: null, timestamp: '2024-01-15T10:30:00.000Z',
  receivedAt: '2024-01-15T10:30:00.000Z', propertiesJson: '{}', elementsChain: '', groups: [null, null, null, null, null], historicalMigration: false,
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

    it.runIf(target.server !== undefined)('fails an encoded run whose thread cannot read, with the server\'s message', async () => {
      const database = `chexport_${randomBytes(6).toString('hex')}`;
      const client = target.connect(database);
      try {
        const analytics = clickhouseFoldedAnalytics(client);
        await analytics.open();
        await analytics.sink.append([{ ...row, uuid: '0190a000-0000-4000-8000-000000000001' }], 1);
        // The run opens on the connection; its thread reads another database, which does not exist.
        const source = clickhouseExportSource(client, noPersons, { server: target.server!(`${database}_missing`), encodedMinRows: 0 });
        const rows = await source(exp(null), { ...run, backfill_id: 'b' });
        expect(rows.total).toBe(1);
        const read = async () => {
          for await (const _chunk of rows.encoded!('JSONLines', 10, () => {})!);
        };
        await expect(read()).rejects.toThrow(/export reader failed: ClickHouse \d+: .*_missing/);
        await rows.close();
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
