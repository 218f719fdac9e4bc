import type { Actor } from '../../streams';
import type { SqlSession, SqlValue } from '../../src/store/sql';
import type { ActivityScope } from './transitions';

/** One entry as stored, its JSON columns parsed. */
export interface ActivityRow {
  id: string;
  position: number;
  project_id: number;
  scope: ActivityScope;
  item_id: string;
  activity: string;
  actor: Actor;
  user_id: number | null;
  detail: Record<string, unknown>;
  created_at: string;
}

interface RawRow extends Omit<ActivityRow, 'actor' | 'detail'> {
  actor: string;
  detail: string;
}

export interface ActivityFilters {
  /** The scopes the reader may see (an empty list sees nothing). */
  scopes: readonly ActivityScope[];
  itemId?: string;
  userId?: number;
  /** Inclusive bounds on created_at (ISO texts, compared as text as they are written by toISOString). */
  after?: string;
  before?: string;
}

const parsed = (r: RawRow): ActivityRow => ({ ...r, actor: JSON.parse(r.actor) as Actor, detail: JSON.parse(r.detail) as Record<string, unknown> });

/** Read side of the activity projection: a project's entries, newest first, filtered and paged. */
export function activityQueries(db: SqlSession) {
  return {
    async list(projectId: number, filters: ActivityFilters, limit: number, offset: number): Promise<{ count: number; rows: ActivityRow[] }> {
      const where = ['project_id = ?', db.dialect.inJsonArray('scope', 'text')];
      const params: SqlValue[] = [projectId, JSON.stringify(filters.scopes)];
      if (filters.itemId !== undefined) {
        where.push('item_id = ?');
        params.push(filters.itemId);
      }
      if (filters.userId !== undefined) {
        where.push('user_id = ?');
        params.push(filters.userId);
      }
      if (filters.after !== undefined) {
        where.push('created_at >= ?');
        params.push(filters.after);
      }
      if (filters.before !== undefined) {
        where.push('created_at <= ?');
        params.push(filters.before);
      }
      const clause = where.join(' AND ');
      const { n: count } = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM activity_log WHERE ${clause}`, ...params))!;
      const rows = await db.all<RawRow>(
        `SELECT id, position, project_id, scope, item_id, activity, actor, user_id, detail, created_at FROM activity_log
         WHERE ${clause} ORDER BY position DESC LIMIT ? OFFSET ?`,
        ...params,
        limit,
        offset,
      );
      return { count, rows: rows.map(parsed) };
    },

    /** Whether the project has (or had) this item: deleted items keep their history. */
    async hasItem(projectId: number, scope: ActivityScope, itemId: string): Promise<boolean> {
      const row = await db.get('SELECT 1 AS hit FROM activity_items WHERE project_id = ? AND scope = ? AND item_id = ?', projectId, scope, itemId);
      return row !== undefined;
    },
  };
}

export type ActivityQueries = ReturnType<typeof activityQueries>;
