import type { SurveyFields } from '../streams';
import type { SqlStore } from './projection';

export interface SurveyRow {
  id: string;
  project_id: number;
  fields: SurveyFields;
  /** Key of the internal targeting flag (its row may be missing if its creation failed). */
  internal_flag_key: string;
  /** Key of the user targeting flag, if the survey has one. */
  targeting_flag_key: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  version: number;
  /** Distinct `survey sent` submissions. */
  responses_count: number;
}

type Raw = Omit<SurveyRow, 'fields'> & { fields: string };

const COLUMNS = `s.id, s.project_id, s.fields, s.internal_flag_key, s.targeting_flag_key, s.created_by, s.created_at, s.updated_at, s.version,
  (SELECT count(*) FROM survey_responses r WHERE r.project_id = s.project_id AND r.survey_id = s.id) AS responses_count`;

const row = (r: Raw): SurveyRow => ({ ...r, fields: JSON.parse(r.fields) as SurveyFields });

export function surveyQueries(db: SqlStore) {
  return {
    byId: (projectId: number, id: string): SurveyRow | undefined => {
      const r = db.prepare(`SELECT ${COLUMNS} FROM surveys s WHERE s.project_id = ? AND s.id = ? AND s.deleted = 0`).get(projectId, id) as Raw | undefined;
      return r ? row(r) : undefined;
    },

    /** Whether another live survey of the project has this name (PostHog's unique name rule). */
    nameTaken: (projectId: number, name: string, exceptId: string | null): boolean =>
      db.prepare('SELECT 1 FROM surveys WHERE project_id = ? AND name = ? AND deleted = 0 AND id IS NOT ?').get(projectId, name, exceptId) !== undefined,

    /** Newest first; `search` matches name or description, case-insensitively. */
    list: (projectId: number, limit: number, offset: number, search?: string) => {
      const where = `s.project_id = ? AND s.deleted = 0${search ? ` AND (s.name LIKE ? ESCAPE '\\' OR json_extract(s.fields, '$.description') LIKE ? ESCAPE '\\')` : ''}`;
      const like = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
      const args = like ? [projectId, like, like] : [projectId];
      const count = (db.prepare(`SELECT count(*) AS n FROM surveys s WHERE ${where}`).get(...args) as { n: number }).n;
      const rows = db.prepare(`SELECT ${COLUMNS} FROM surveys s WHERE ${where} ORDER BY s.created_at DESC, s.id LIMIT ? OFFSET ?`).all(...args, limit, offset) as Raw[];
      return { count, rows: rows.map(row) };
    },

    /** What posthog-js is served: every non-archived survey, drafts and stopped ones included. */
    active: (projectId: number): SurveyRow[] =>
      (db.prepare(`SELECT ${COLUMNS} FROM surveys s WHERE s.project_id = ? AND s.deleted = 0 AND s.archived = 0 ORDER BY s.created_at, s.id`).all(projectId) as Raw[]).map(row),

    /** Responses per survey id, as PostHog's responses_count action. */
    responsesCount: (projectId: number): Record<string, number> =>
      Object.fromEntries(
        (
          db
            .prepare('SELECT r.survey_id, count(*) AS n FROM survey_responses r JOIN surveys s ON s.id = r.survey_id AND s.project_id = r.project_id WHERE r.project_id = ? AND s.deleted = 0 GROUP BY r.survey_id ORDER BY r.survey_id')
            .all(projectId) as { survey_id: string; n: number }[]
        ).map((r) => [r.survey_id, r.n]),
      ),
  };
}

export type SurveyQueries = ReturnType<typeof surveyQueries>;
