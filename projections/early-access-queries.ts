import type { EarlyAccessFields } from '../streams';
import type { SqlStore } from './projection';

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

export function earlyAccessQueries(db: SqlStore) {
  return {
    byId: (projectId: number, id: string): EarlyAccessRow | undefined => {
      const r = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} AND e.project_id = ? AND e.id = ?`).get(projectId, id) as Raw | undefined;
      return r ? row(r) : undefined;
    },

    /** Whether a visible feature already owns this flag (PostHog allows one feature per flag). */
    ownerOfFlag: (projectId: number, flagKey: string): string | undefined =>
      (db.prepare(`SELECT e.id FROM ${FROM} AND e.project_id = ? AND e.flag_key = ?`).get(projectId, flagKey) as { id: string } | undefined)?.id,

    /** Newest first. */
    list: (projectId: number, limit: number, offset: number) => {
      const count = (db.prepare(`SELECT count(*) AS n FROM ${FROM} AND e.project_id = ?`).get(projectId) as { n: number }).n;
      const rows = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} AND e.project_id = ? ORDER BY e.created_at DESC, e.id LIMIT ? OFFSET ?`).all(projectId, limit, offset) as Raw[];
      return { count, rows: rows.map(row) };
    },

    /** The features in the given stages, oldest first (the public endpoint's list). */
    inStages: (projectId: number, stages: readonly string[]): EarlyAccessRow[] => {
      if (stages.length === 0) return [];
      const marks = stages.map(() => '?').join(', ');
      return (
        db.prepare(`SELECT ${COLUMNS} FROM ${FROM} AND e.project_id = ? AND e.stage IN (${marks}) ORDER BY e.created_at, e.id`).all(projectId, ...stages) as Raw[]
      ).map(row);
    },
  };
}

export type EarlyAccessQueries = ReturnType<typeof earlyAccessQueries>;
