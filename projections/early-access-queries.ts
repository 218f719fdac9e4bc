import type { EarlyAccessFields } from '../streams';
import type { SqlSession } from '../src/store/sql';

export interface EarlyAccessRow {
  id: string;
  project_id: number;
  fields: EarlyAccessFields;
  flag_key: string;
  /** The owned flag's id (its row in feature_flags). */
  flag_id: number;
  created_by: number | null;
  created_at: string;
  version: number;
}

type Raw = Omit<EarlyAccessRow, 'fields'> & { fields: string };

// Linked, not deleted or abandoned, and its flag present: the flag row gives the id.
const FROM = `early_access_features e JOIN feature_flags f ON f.project_id = e.project_id AND f.key = e.flag_key
  WHERE e.flag_linked = 1 AND e.gone = 0`;
const COLUMNS = 'e.id, e.project_id, e.fields, e.flag_key, f.id AS flag_id, e.created_by, e.created_at, e.version';

const row = (r: Raw): EarlyAccessRow => ({ ...r, fields: JSON.parse(r.fields) as EarlyAccessFields });

export function earlyAccessQueries(db: SqlSession) {
  return {
    byId: async (projectId: number, id: string): Promise<EarlyAccessRow | undefined> => {
      const r = await db.get<Raw>(`SELECT ${COLUMNS} FROM ${FROM} AND e.project_id = ? AND e.id = ?`, projectId, id);
      return r ? row(r) : undefined;
    },

    /** Whether a visible feature already owns this flag (PostHog allows one feature per flag). */
    ownerOfFlag: async (projectId: number, flagKey: string): Promise<string | undefined> =>
      (await db.get<{ id: string }>(`SELECT e.id FROM ${FROM} AND e.project_id = ? AND e.flag_key = ?`, projectId, flagKey))?.id,

    /** Newest first. */
    list: async (projectId: number, limit: number, offset: number) => {
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${FROM} AND e.project_id = ?`, projectId))!.n;
      const rows = await db.all<Raw>(`SELECT ${COLUMNS} FROM ${FROM} AND e.project_id = ? ORDER BY e.created_at DESC, e.id LIMIT ? OFFSET ?`, projectId, limit, offset);
      return { count, rows: rows.map(row) };
    },

    /** The features in the given stages, oldest first (the public endpoint's list). */
    inStages: async (projectId: number, stages: readonly string[]): Promise<EarlyAccessRow[]> => {
      if (stages.length === 0) return [];
      const inStages = db.dialect.inJsonArray('e.stage', 'text');
      return (await db.all<Raw>(`SELECT ${COLUMNS} FROM ${FROM} AND e.project_id = ? AND ${inStages} ORDER BY e.created_at, e.id`, projectId, JSON.stringify(stages))).map(row);
    },
  };
}

export type EarlyAccessQueries = ReturnType<typeof earlyAccessQueries>;
