import type { ClickHouseConnection } from './connection';
import { EVENT_HOURS_TABLE, HOUR_MS } from './schema';
import { int } from './sql-literal';

/**
 * Where a newest-first read of `rows` rows before `beforeMs` (null: from the newest) can start: the
 * start of the latest hour such that the whole hours from it up to the cursor's hour hold at least
 * `rows` rows by event_hours' count, or null when they hold fewer (read everything before the
 * cursor). The cursor's own hour is not counted: its rows after the cursor were listed already.
 * Only a hint: a page read from there that comes back full is the right page whatever the counts
 * (every row before the start is older than every row after it), and one that comes back short is
 * read again without the start. The counts may run high (a batch sent again after a crash counts
 * twice; hours of times before 1970 round towards zero).
 *
 * One statement reading the project's hour rows (a few thousand a year), summed newest first on the
 * server: 18.16 has no window functions, so the running sum is arrayCumSum over the sorted hours.
 */
export async function newestHoursStart(client: ClickHouseConnection, projectId: number, beforeMs: number | null, rows: number): Promise<number | null> {
  const hours = beforeMs === null ? '1' : `hour < ${int(Math.floor(beforeMs / HOUR_MS))}`;
  const [found] = await client.rows<{ i: string | number; hour: string | number }>(
    `SELECT i, if(i = 0, toInt64(0), tupleElement(arrayElement(newest, i), 1)) AS hour
     FROM (SELECT arrayReverseSort(groupArray((hour, n))) AS newest, arrayFirstIndex(c -> c >= ${int(rows)}, arrayCumSum(arrayMap(h -> tupleElement(h, 2), newest))) AS i
       FROM (SELECT hour, sum(n) AS n FROM ${EVENT_HOURS_TABLE} WHERE project_id = ${int(projectId)} AND ${hours} GROUP BY hour))`,
  );
  return Number(found.i) === 0 ? null : Number(found.hour) * HOUR_MS;
}
