import type { AnalyticsEventRow, AnalyticsSink } from '../../store/analytics';
import type { ClickHouseConnection } from './connection';
import { EVENT_UUIDS_TABLE, EVENTS_TABLE } from './schema';
import { int, str, strList } from './sql-literal';
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

/**
 * A chunk's range holding up to this many stored uuids per uuid of the chunk is read whole and
 * matched here; a denser one is looked up by its uuids.
 */
const RANGE_ROWS_PER_UUID = 4;

/** Strings whose UTF-16 order is their byte order (ClickHouse compares Strings by bytes). */
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The rows whose (project, uuid) event_uuids does not hold, per project in chunks of sorted uuids.
 * A batch's uuids are mostly new and, as the SDKs make them (v7), close in time and so in order:
 * the uuids stored between a chunk's lowest and highest are few, and reading them by the table's
 * key (a range of a few granules) costs a tenth of matching a list of 5,000 literals, which 18.16
 * parses and hashes for every statement. Random uuids (v4) spread a chunk over the whole table:
 * the range read stops at its limit and the chunk is looked up by its uuids.
 */
async function unknownRows(client: ClickHouseConnection, rows: readonly AnalyticsEventRow[]): Promise<AnalyticsEventRow[]> {
  const byProject = new Map<number, string[]>();
  for (const row of rows) {
    const uuids = byProject.get(row.projectId) ?? [];
    uuids.push(row.uuid);
    byProject.set(row.projectId, uuids);
  }
  const known = new Set<string>();
  for (const [projectId, uuids] of byProject) {
    uuids.sort();
    for (let i = 0; i < uuids.length; i += LOOKUP_CHUNK) {
      const chunk = uuids.slice(i, i + LOOKUP_CHUNK);
      for (const uuid of await storedOf(client, projectId, chunk)) known.add(`${projectId} ${uuid}`);
    }
  }
  return rows.filter((row) => !known.has(`${row.projectId} ${row.uuid}`));
}

/** Of a sorted chunk of uuids, those event_uuids holds (and, from a range read, others near them). */
async function storedOf(client: ClickHouseConnection, projectId: number, chunk: readonly string[]): Promise<string[]> {
  const [lowest, highest] = [chunk[0], chunk[chunk.length - 1]];
  if (chunk.every((u) => ASCII.test(u))) {
    const limit = chunk.length * RANGE_ROWS_PER_UUID;
    const near = await client.rows<{ uuid: string }>(
      `SELECT uuid FROM ${EVENT_UUIDS_TABLE} WHERE project_id = ${int(projectId)} AND uuid >= ${str(lowest)} AND uuid <= ${str(highest)} LIMIT ${int(limit + 1)}`,
    );
    // Stryker disable next-line EqualityOperator: equivalent, a range at its limit looked up by list instead gives the same uuids
    if (near.length <= limit) return near.map((r) => r.uuid);
  }
  const found = await client.rows<{ uuid: string }>(`SELECT DISTINCT uuid FROM ${EVENT_UUIDS_TABLE} WHERE project_id = ${int(projectId)} AND uuid IN ${strList(chunk)}`);
  return found.map((r) => r.uuid);
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
