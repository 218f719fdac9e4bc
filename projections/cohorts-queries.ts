import type { SqlSession } from '../src/store/sql';

export interface CohortRow {
  id: number;
  project_id: number;
  name: string;
  description: string;
  filters: Record<string, unknown>;
  flag_key: string;
  since: string;
  experiment_id: number | null;
  created_by: number | null;
  created_at: string;
  version: number;
  /** Persons in the cohort now (exposures resolved through merges). */
  count: number;
}

type Raw = Omit<CohortRow, 'filters'> & { filters: string };

/*
 * An exposure cohort is visible once its experiment links it: the service creates the cohort first
 * and links it second, so a cohort whose link never landed is not an orphan anyone can see.
 */
const VISIBLE = `c.deleted = 0 AND (c.experiment_id IS NULL OR EXISTS (
  SELECT 1 FROM experiments x WHERE x.id = c.experiment_id AND x.exposure_cohort = c.id))`;

/**
 * Distinct persons whose distinct ids were exposed. The inner join to person_distinct_ids resolves
 * merges and, as in PostHog, leaves out personless ids (no person profile, no cohort membership).
 */
const MEMBER_COUNT = `SELECT count(DISTINCT d.person_id) FROM cohort_flag_exposures x
  JOIN person_distinct_ids d ON d.project_id = x.project_id AND d.distinct_id = x.distinct_id
  WHERE x.project_id = c.project_id AND x.flag_key = c.flag_key AND x.last_timestamp >= c.since`;

const COLUMNS = `c.id, c.project_id, c.name, c.description, c.filters, c.flag_key, c.since, c.experiment_id,
  c.created_by, c.created_at, c.version, (${MEMBER_COUNT}) AS count`;

const row = (r: Raw): CohortRow => ({ ...r, filters: JSON.parse(r.filters) as Record<string, unknown> });

export function cohortQueries(db: SqlSession) {
  return {
    nextId: async () => (await db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM cohorts'))!.id,

    byId: async (projectId: number, id: number): Promise<CohortRow | undefined> => {
      const r = await db.get<Raw>(`SELECT ${COLUMNS} FROM cohorts c WHERE c.project_id = ? AND c.id = ? AND ${VISIBLE}`, projectId, id);
      return r ? row(r) : undefined;
    },

    /** Newest first. */
    list: async (projectId: number, limit: number, offset: number) => {
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM cohorts c WHERE c.project_id = ? AND ${VISIBLE}`, projectId))!.n;
      const rows = await db.all<Raw>(
        `SELECT ${COLUMNS} FROM cohorts c WHERE c.project_id = ? AND ${VISIBLE} ORDER BY c.id DESC LIMIT ? OFFSET ?`,
        projectId,
        limit,
        offset,
      );
      return { count, rows: rows.map(row) };
    },

    /** Person uuids of a cohort, in uuid order (paged). */
    members: async (projectId: number, id: number, limit: number, offset: number): Promise<string[]> =>
      (
        await db.all<{ person_id: string }>(
          `SELECT DISTINCT d.person_id FROM cohorts c
           JOIN cohort_flag_exposures x ON x.project_id = c.project_id AND x.flag_key = c.flag_key AND x.last_timestamp >= c.since
           JOIN person_distinct_ids d ON d.project_id = x.project_id AND d.distinct_id = x.distinct_id
           WHERE c.project_id = ? AND c.id = ? ORDER BY d.person_id LIMIT ? OFFSET ?`,
          projectId,
          id,
          limit,
          offset,
        )
      ).map((r) => r.person_id),

    /**
     * Ids of the live cohorts the person behind `distinctId` belongs to, i.e. whose exposure query
     * found one of the person's distinct ids exposed late enough. Flag evaluation calls this only
     * when a flag has a cohort condition.
     */
    cohortIdsOf: async (projectId: number, distinctId: string): Promise<number[]> =>
      (
        await db.all<{ id: number }>(
          `SELECT DISTINCT c.id FROM person_distinct_ids me
           JOIN person_distinct_ids mine ON mine.person_id = me.person_id
           JOIN cohort_flag_exposures x ON x.project_id = me.project_id AND x.distinct_id = mine.distinct_id
           JOIN cohorts c ON c.project_id = x.project_id AND c.flag_key = x.flag_key AND x.last_timestamp >= c.since
           WHERE me.project_id = ? AND me.distinct_id = ? AND ${VISIBLE} ORDER BY c.id`,
          projectId,
          distinctId,
        )
      ).map((r) => r.id),
  };
}

export type CohortQueries = ReturnType<typeof cohortQueries>;
