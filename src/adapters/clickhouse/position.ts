import type { ClickHouseConnection } from './connection';
import { EVENTS_TABLE } from './schema';

/**
 * The log position the events table has been folded to: the highest `_position` stored (max over
 * an empty table is 0 on every version). Every append stores its rows with its position, in one
 * insert, after every lower position's rows, so the rows at or below it never change (short of
 * identical copies, which FINAL collapses).
 */
export async function storedPosition(client: ClickHouseConnection): Promise<number> {
  const [row] = await client.rows<{ p: string | number }>(`SELECT max(_position) AS p FROM ${EVENTS_TABLE}`);
  return Number(row?.p ?? 0);
}
