import type { SurveyFields } from '../streams';
import type { SqlSession } from '../src/store/sql';

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

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export function surveyQueries(db: SqlSession) {
  const d = db.dialect;
  // Name or description, ignoring case (the dialect's way: SQLite's LIKE, PostgreSQL's ILIKE).
  const SEARCH = ` AND (${d.likeIgnoringCase('s.name', '?')} OR ${d.likeIgnoringCase(d.jsonText('s.fields', 'description'), '?')})`;
  return {
    byId: async (projectId: number, id: string): Promise<SurveyRow | undefined> => {
      const r = await db.get<Raw>(`SELECT ${COLUMNS} FROM surveys s WHERE s.project_id = ? AND s.id = ? AND s.deleted = 0`, projectId, id);
      return r ? row(r) : undefined;
    },

    /** Whether another live survey of the project has this name (PostHog's unique name rule). */
    nameTaken: async (projectId: number, name: string, exceptId: string | null): Promise<boolean> => {
      // Two statements rather than `id IS NOT ?`: PostgreSQL has no IS NOT between values.
      const found =
        exceptId === null
          ? await db.get('SELECT 1 AS taken FROM surveys WHERE project_id = ? AND name = ? AND deleted = 0', projectId, name)
          : await db.get('SELECT 1 AS taken FROM surveys WHERE project_id = ? AND name = ? AND deleted = 0 AND id <> ?', projectId, name, exceptId);
      return found !== undefined;
    },

    /** Newest first; `search` matches name or description, case-insensitively. */
    list: async (projectId: number, limit: number, offset: number, search?: string) => {
      const where = `s.project_id = ? AND s.deleted = 0${search ? SEARCH : ''}`;
      const like = search ? `%${escapeLike(search)}%` : undefined;
      const args = like ? [projectId, like, like] : [projectId];
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM surveys s WHERE ${where}`, ...args))!.n;
      const rows = await db.all<Raw>(`SELECT ${COLUMNS} FROM surveys s WHERE ${where} ORDER BY s.created_at DESC, s.id LIMIT ? OFFSET ?`, ...args, limit, offset);
      return { count, rows: rows.map(row) };
    },

    /** What posthog-js is served: every non-archived survey, drafts and stopped ones included. */
    active: async (projectId: number): Promise<SurveyRow[]> =>
      (await db.all<Raw>(`SELECT ${COLUMNS} FROM surveys s WHERE s.project_id = ? AND s.deleted = 0 AND s.archived = 0 ORDER BY s.created_at, s.id`, projectId)).map(row),

    /** Responses per survey id, as PostHog's responses_count action. */
    responsesCount: async (projectId: number): Promise<Record<string, number>> =>
      Object.fromEntries(
        (
          await db.all<{ survey_id: string; n: number }>(
            'SELECT r.survey_id, count(*) AS n FROM survey_responses r JOIN surveys s ON s.id = r.survey_id AND s.project_id = r.project_id WHERE r.project_id = ? AND s.deleted = 0 GROUP BY r.survey_id ORDER BY r.survey_id',
            projectId,
          )
        ).map((r) => [r.survey_id, r.n]),
      ),
  };
}

export type SurveyQueries = ReturnType<typeof surveyQueries>;
