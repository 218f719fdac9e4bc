import type { SqlSession } from '../src/store/sql';

export interface FeatureFlagRow {
  id: number;
  project_id: number;
  key: string;
  name: string;
  filters: Record<string, unknown>;
  active: boolean;
  deleted: boolean;
  ensure_experience_continuity: boolean;
  created_at: string;
  created_by: number | null;
  experiment_id: number | null;
  version: number;
  updated_at: string;
}

type Raw = Omit<FeatureFlagRow, 'filters' | 'active' | 'deleted' | 'ensure_experience_continuity'> & {
  filters: string;
  active: number;
  deleted: number;
  ensure_experience_continuity: number;
};

const row = (r: Raw): FeatureFlagRow => ({
  ...r,
  filters: JSON.parse(r.filters),
  active: r.active === 1,
  deleted: r.deleted === 1,
  ensure_experience_continuity: r.ensure_experience_continuity === 1,
});

/** A LIKE pattern matching `text` anywhere, its wildcards and the escape character taken literally. */
export const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function featureFlagQueries(db: SqlSession) {
  return {
    byId: async (projectId: number, id: number) => {
      const r = await db.get<Raw>('SELECT * FROM feature_flags WHERE project_id = ? AND id = ?', projectId, id);
      return r ? row(r) : undefined;
    },
    byKey: async (projectId: number, key: string) => {
      const r = await db.get<Raw>('SELECT * FROM feature_flags WHERE project_id = ? AND key = ?', projectId, key);
      return r ? row(r) : undefined;
    },
    /** Not deleted, newest first (PostHog's list order); `search` matches key or name, ignoring case. */
    list: async (projectId: number, limit: number, offset: number, filter: { search?: string; active?: boolean } = {}) => {
      const where = ['project_id = ?', 'deleted = 0'];
      const params: (string | number)[] = [projectId];
      if (filter.search) {
        where.push(`(${db.dialect.likeIgnoringCase('key', '?')} OR ${db.dialect.likeIgnoringCase('name', '?')})`);
        params.push(containsPattern(filter.search), containsPattern(filter.search));
      }
      if (filter.active !== undefined) {
        where.push('active = ?');
        params.push(filter.active ? 1 : 0);
      }
      const w = where.join(' AND ');
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM feature_flags WHERE ${w}`, ...params))!.n;
      const rows = (await db.all<Raw>(`SELECT * FROM feature_flags WHERE ${w} ORDER BY id DESC LIMIT ? OFFSET ?`, ...params, limit, offset)).map(row);
      return { count, rows };
    },
    /** Every non-deleted flag of a project: what evaluation loads into memory. */
    allLive: async (projectId: number) =>
      (await db.all<Raw>('SELECT * FROM feature_flags WHERE project_id = ? AND deleted = 0 ORDER BY id', projectId)).map(row),
  };
}

export type FeatureFlagQueries = ReturnType<typeof featureFlagQueries>;
