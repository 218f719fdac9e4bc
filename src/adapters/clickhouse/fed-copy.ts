import type { ClickHouseConnection } from './connection';
import { int, str } from './sql-literal';

export interface FedCopy {
  /** The table the view feeds. */
  table: string;
  /** Its CREATE TABLE under a given name. */
  create(name: string): string;
  /** What the view inserts for each block inserted into events (`where`: 1), and what fills the table, a range of positions at a time. */
  select(where: string): string;
}

/**
 * Rows per statement of a fill: each statement answers within undici's default 300 s wait for
 * response headers (the server sends them at the end, wait_end_of_query) on a slow server too.
 */
const FILL_ROWS = 2_000_000;

/**
 * A table fed from events by a materialized view (`<table>_feed`). When the table is missing (a
 * database from before it existed) it is first filled from what events holds, under another name
 * and renamed when complete: a crash mid-fill leaves no half-filled table that would pass for a
 * whole one, and the next open fills it again. The view comes after the table, so every later
 * insert into events reaches it; nothing may insert into events meanwhile.
 */
export async function fedCopy(client: ClickHouseConnection, copy: FedCopy, fillRows = FILL_ROWS): Promise<void> {
  const [found] = await client.rows<{ n: string | number }>(`SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = ${str(copy.table)}`);
  if (Number(found.n) === 0) {
    const filling = `${copy.table}_filling`;
    await client.command(`DROP TABLE IF EXISTS ${filling}`);
    await client.command(copy.create(filling));
    for (const [from, to] of await positionRanges(client, fillRows)) await client.command(`INSERT INTO ${filling} ${copy.select(`_position >= ${int(from)} AND _position <= ${int(to)}`)}`);
    await client.command(`RENAME TABLE ${filling} TO ${copy.table}`);
  }
  await client.command(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${copy.table}_feed TO ${copy.table} AS ${copy.select('1')}`);
}

/** Ranges of events' positions of about `fillRows` rows each (a batch's rows are never split), in order. */
async function positionRanges(client: ClickHouseConnection, fillRows: number): Promise<[number, number][]> {
  const counts = await client.rows<{ p: string | number; n: string | number }>('SELECT _position AS p, count() AS n FROM events GROUP BY p ORDER BY p');
  const ranges: [number, number][] = [];
  let rows = fillRows;
  for (const { p, n } of counts) {
    if (rows >= fillRows) {
      ranges.push([Number(p), Number(p)]);
      rows = 0;
    }
    ranges[ranges.length - 1][1] = Number(p);
    rows += Number(n);
  }
  return ranges;
}
