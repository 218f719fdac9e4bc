import type { AnalyticsEventRow, AnalyticsSink } from '../../store/analytics';
import type { ClickHouseConnection } from './connection';
import { EVENT_UUIDS_TABLE, EVENTS_TABLE } from './schema';
import { int, strList } from './sql-literal';
import { toMs } from './time';

/**
 * Rows one append may hold: the server's default max_insert_block_size, so one INSERT is one block
 * and (one partition) one part per table, each stored whole or not at all.
 */
const ROWS_PER_APPEND = 1_048_576;
/** uuids per lookup statement: ~40 bytes each stays under the default max_query_size (256 KiB). */
const LOOKUP_CHUNK = 5000;

/**
 * The sink: one `INSERT … FORMAT JSONEachRow` per append, idempotent by (project, uuid) as the port
 * asks. A row is dropped when its (project, uuid) came earlier in the batch or is in event_uuids;
 * the new rows go to events (whose views carry them into its copies, schema.ts), then their uuids
 * to event_uuids. A crash between those two inserts, or inside the first (some tables written, not
 * all: the fold's position is the lowest of theirs), leaves tables a copy that event_uuids does not
 * know, so the batch sent again stores it a second time: identical, same sorting key, and reads say
 * FINAL. A different later copy can only come after that resend, by which time its uuid is known.
 *
 * One writer at a time (the projection that folds the log): two sinks racing on one uuid could
 * both miss it in the lookup.
 */
export function clickhouseSink(client: ClickHouseConnection): AnalyticsSink {
  return {
    async append(rows: readonly AnalyticsEventRow[], position: number): Promise<void> {
      if (rows.length > ROWS_PER_APPEND) throw new RangeError(`at most ${ROWS_PER_APPEND} rows per append`);
      int(position);
      const fresh = await unknownRows(client, firstOfEach(rows));
      if (fresh.length === 0) return;
      await client.insert(
        EVENTS_TABLE,
        fresh.map((row) => storedRow(row, position)),
      );
      await client.insert(
        EVENT_UUIDS_TABLE,
        fresh.map((row) => ({ project_id: row.projectId, uuid: row.uuid })),
      );
    },
  };
}

function firstOfEach(rows: readonly AnalyticsEventRow[]): AnalyticsEventRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = `${row.projectId} ${row.uuid}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The rows whose (project, uuid) event_uuids does not hold, per project in chunks. */
async function unknownRows(client: ClickHouseConnection, rows: readonly AnalyticsEventRow[]): Promise<AnalyticsEventRow[]> {
  const byProject = new Map<number, string[]>();
  for (const row of rows) {
    const uuids = byProject.get(row.projectId) ?? [];
    uuids.push(row.uuid);
    byProject.set(row.projectId, uuids);
  }
  const known = new Set<string>();
  for (const [projectId, uuids] of byProject) {
    for (let i = 0; i < uuids.length; i += LOOKUP_CHUNK) {
      const found = await client.rows<{ uuid: string }>(
        `SELECT DISTINCT uuid FROM ${EVENT_UUIDS_TABLE} WHERE project_id = ${int(projectId)} AND uuid IN ${strList(uuids.slice(i, i + LOOKUP_CHUNK))}`,
      );
      for (const { uuid } of found) known.add(`${projectId} ${uuid}`);
    }
  }
  return rows.filter((row) => !known.has(`${row.projectId} ${row.uuid}`));
}

/** A row as the sink inserts it into events (its columns, times in milliseconds, the append's position). */
export function storedRow(row: AnalyticsEventRow, position: number): Record<string, unknown> {
  const [group_0, group_1, group_2, group_3, group_4] = row.groups;
  return {
    project_id: row.projectId,
    uuid: row.uuid,
    event: row.event,
    distinct_id: row.distinctId,
    person_id: row.personId,
    timestamp: toMs(row.timestamp),
    received_at: toMs(row.receivedAt),
    properties: row.propertiesJson,
    elements_chain: row.elementsChain,
    group_0,
    group_1,
    group_2,
    group_3,
    group_4,
    historical_migration: row.historicalMigration ? 1 : 0,
    _position: position,
  };
}
