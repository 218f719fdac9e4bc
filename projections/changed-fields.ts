import type { SqlSession } from '../src/store/sql';

/**
 * A resource row's `fields` (its JSON column of the fields the API returns) with an update's
 * `changes` laid over them: how each resource projection applies its `…Updated` event. Null when the
 * row is not there (an update of a resource the projection never saw created changes nothing).
 * `table` is the projection's own table name, never input.
 */
export async function changedFields(db: SqlSession, table: string, id: number | string, changes: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  const current = await db.get<{ fields: string }>(`SELECT fields FROM ${table} WHERE id = ?`, id);
  if (!current) return null;
  return { ...(JSON.parse(current.fields) as Record<string, unknown>), ...changes };
}
