import type { AnalyticsEventRow, AnalyticsSink } from '../../store/analytics';
import type { ClickHouseClient } from './http-client';
import { EVENTS_TABLE } from './schema';
import { toMs } from './time';

/** Rows per INSERT: one request and one part each; larger batches are split. */
const INSERT_CHUNK = 100_000;
/** Rows one append may hold: the row's index within it is the low 20 bits of its order. */
const ROWS_PER_APPEND = 2 ** 20;

/**
 * The sink: batched `INSERT … FORMAT JSONEachRow`. Every row carries `_keep`, which ranks copies of
 * one (project, uuid): the earlier in log order (position, then the row's index in the append),
 * the larger, so reads (and merges) keep the copy stored first, as the port asks. A batch re-sent
 * after a crash carries its old positions and so loses to nothing it already wrote.
 */
export function clickhouseSink(client: ClickHouseClient): AnalyticsSink {
  return {
    async append(rows: readonly AnalyticsEventRow[], position: number): Promise<void> {
      if (rows.length > ROWS_PER_APPEND) throw new RangeError(`at most ${ROWS_PER_APPEND} rows per append`);
      const base = position * ROWS_PER_APPEND;
      if (!Number.isSafeInteger(base + ROWS_PER_APPEND) || position < 0) throw new RangeError(`log position out of range: ${position}`);
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK).map((row, j) => stored(row, Number.MAX_SAFE_INTEGER - (base + i + j)));
        await client.insert(EVENTS_TABLE, chunk);
      }
    },
  };
}

function stored(row: AnalyticsEventRow, keep: number): Record<string, unknown> {
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
    _keep: keep,
  };
}
