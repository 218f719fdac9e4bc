import type { ClickHouseConnection } from './connection';
import { EVENT_ROW_TABLES } from './schema';

/**
 * The log position the events tables have been folded to: the highest `_position` stored in all of
 * them (max over an empty table is 0 on every version). Every append stores its rows with its
 * position, in one insert that the views carry into the copies, after every lower position's rows;
 * a crash mid-insert may leave a batch in some of the tables only, and the lowest of their highest
 * positions sends it again (identical copies, which FINAL collapses). So the rows at or below it
 * never change, in any of the tables.
 */
export async function storedPosition(client: ClickHouseConnection): Promise<number> {
  const highest = EVENT_ROW_TABLES.map((table) => `(SELECT max(_position) FROM ${table})`);
  const lowest = highest.reduce((a, b) => `least(${a}, ${b})`);
  const [row] = await client.rows<{ p: string | number }>(`SELECT ${lowest} AS p`);
  return Number(row?.p ?? 0);
}
