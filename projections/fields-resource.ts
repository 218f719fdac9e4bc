import type { SqlSession, TableSchema } from '../src/store/sql';
import { changedFields } from './changed-fields';
import { stableJson } from './json';

/**
 * A resource stored as one row of its API fields (`fields`, JSON) beside the columns lists filter
 * on: id, project, name, author, times, a soft-delete mark and a version counting its changes.
 * Actions and saved experiment metrics are kept so; `table` is the projection's own table name.
 */
export function fieldsResourceTable(table: string, name: 'text' | 'text?'): TableSchema {
  return {
    name: table,
    columns: {
      id: 'integer',
      project_id: 'integer',
      name,
      fields: 'text',
      created_by: 'integer?',
      created_at: 'text',
      updated_at: 'text',
      deleted: 'integer',
      version: 'integer',
    },
    primaryKey: ['id'],
    indexes: { [`${table}_by_project`]: ['project_id', 'deleted'] },
    orderBy: 'id',
  };
}

export interface CreatedResource {
  id: number;
  projectId: number;
  name: string | null;
  fields: Record<string, unknown>;
  createdBy: number | null;
}

/** The row of a resource just created (version 1, not deleted), at `at`. */
export async function insertFieldsResource(db: SqlSession, table: string, r: CreatedResource, at: string): Promise<void> {
  await db.run(
    `INSERT INTO ${table} (id, project_id, name, fields, created_by, created_at, updated_at, deleted, version) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 1)`,
    r.id,
    r.projectId,
    r.name,
    stableJson(r.fields),
    r.createdBy,
    at,
    at,
  );
}

/**
 * An update's changes laid over the row's fields, its name column read from them by `nameOf`;
 * nothing when the row is not there (see changedFields).
 */
export async function updateFieldsResource(
  db: SqlSession,
  table: string,
  id: number,
  changes: Record<string, unknown>,
  at: string,
  nameOf: (fields: Record<string, unknown>) => string | null,
): Promise<void> {
  const fields = await changedFields(db, table, id, changes);
  if (!fields) return;
  await db.run(`UPDATE ${table} SET name = ?, fields = ?, updated_at = ?, version = version + 1 WHERE id = ?`, nameOf(fields), stableJson(fields), at, id);
}

/** Soft-deletes (or restores) the row. */
export async function markFieldsResourceDeleted(db: SqlSession, table: string, id: number, deleted: boolean, at: string): Promise<void> {
  await db.run(`UPDATE ${table} SET deleted = ?, updated_at = ?, version = version + 1 WHERE id = ?`, deleted ? 1 : 0, at, id);
}
