import type { SqlStore } from './projection';

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

export function featureFlagQueries(db: SqlStore) {
  return {
    byId: (projectId: number, id: number) => {
      const r = db.prepare('SELECT * FROM feature_flags WHERE project_id = ? AND id = ?').get(projectId, id) as Raw | undefined;
      return r ? row(r) : undefined;
    },
    byKey: (projectId: number, key: string) => {
      const r = db.prepare('SELECT * FROM feature_flags WHERE project_id = ? AND key = ?').get(projectId, key) as Raw | undefined;
      return r ? row(r) : undefined;
    },
    /** Not deleted, newest first (PostHog's list order). */
    list: (projectId: number, limit: number, offset: number, filter: { search?: string; active?: boolean } = {}) => {
      const where = ['project_id = ?', 'deleted = 0'];
      const params: (string | number)[] = [projectId];
      if (filter.search) {
        where.push('(key LIKE ? OR name LIKE ?)');
        params.push(`%${filter.search}%`, `%${filter.search}%`);
      }
      if (filter.active !== undefined) {
        where.push('active = ?');
        params.push(filter.active ? 1 : 0);
      }
      const w = where.join(' AND ');
      const count = (db.prepare(`SELECT count(*) AS n FROM feature_flags WHERE ${w}`).get(...params) as { n: number }).n;
      const rows = (db.prepare(`SELECT * FROM feature_flags WHERE ${w} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...params, limit, offset) as Raw[]).map(row);
      return { count, rows };
    },
    /** Every non-deleted flag of a project: what evaluation loads into memory. */
    allLive: (projectId: number) =>
      (db.prepare('SELECT * FROM feature_flags WHERE project_id = ? AND deleted = 0 ORDER BY id').all(projectId) as Raw[]).map(row),
  };
}

export type FeatureFlagQueries = ReturnType<typeof featureFlagQueries>;
