import type { ActionFields } from '../streams';
import type { SqlSession } from '../src/store/sql';

export interface ActionRow {
  id: number;
  project_id: number;
  fields: ActionFields;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  deleted: boolean;
  version: number;
}

type Raw = Omit<ActionRow, 'fields' | 'deleted'> & { fields: string; deleted: number };

const COLUMNS = 'id, project_id, fields, created_by, created_at, updated_at, deleted, version';
const row = (r: Raw): ActionRow => ({ ...r, fields: JSON.parse(r.fields) as ActionFields, deleted: r.deleted === 1 });

export function actionQueries(db: SqlSession) {
  return {
    /** The first id to try for a new action (ids are global, as PostHog's). */
    nextId: async () => (await db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM actions'))!.id,

    /** One action of the project, deleted or not (PostHog retrieves soft-deleted actions by id). */
    byId: async (projectId: number, id: number): Promise<ActionRow | undefined> => {
      const r = await db.get<Raw>(`SELECT ${COLUMNS} FROM actions WHERE project_id = ? AND id = ?`, projectId, id);
      return r ? row(r) : undefined;
    },

    /** The id of another live action of the project with exactly this name (PostHog compares names as they are). */
    nameTakenBy: async (projectId: number, name: string, except: number | null): Promise<number | undefined> =>
      (await db.get<{ id: number }>('SELECT id FROM actions WHERE project_id = ? AND deleted = 0 AND name = ? AND id <> ? ORDER BY id LIMIT 1', projectId, name, except ?? 0))?.id,

    /** The live actions, by name (PostHog orders by last_calculated_at, then name; its last_calculated_at is the creation time here). */
    list: async (projectId: number): Promise<ActionRow[]> =>
      (await db.all<Raw>(`SELECT ${COLUMNS} FROM actions WHERE project_id = ? AND deleted = 0 ORDER BY created_at DESC, name, id`, projectId)).map(row),
  };
}

export type ActionQueries = ReturnType<typeof actionQueries>;
