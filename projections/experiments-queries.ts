import type { SqlSession } from '../src/store/sql';
import type { FeatureFlagRow } from './feature-flags-queries';

/** The linked flag as the Experiment shape nests it: a slice of the flags read model's row. */
export type ExperimentFlag = Pick<
  FeatureFlagRow,
  'id' | 'project_id' | 'key' | 'name' | 'filters' | 'active' | 'deleted' | 'ensure_experience_continuity' | 'version'
>;

export interface ExperimentRow {
  id: number;
  project_id: number;
  name: string;
  description: string;
  start_date: string | null;
  end_date: string | null;
  feature_flag_key: string;
  parameters: unknown;
  secondary_metrics: unknown;
  filters: unknown;
  archived: boolean;
  exposure_cohort: number | null;
  metrics: Record<string, unknown>[];
  metrics_secondary: Record<string, unknown>[];
  primary_metrics_ordered_uuids: string[];
  secondary_metrics_ordered_uuids: string[];
  stats_config: Record<string, unknown> | null;
  exposure_criteria: Record<string, unknown> | null;
  conclusion: string | null;
  conclusion_comment: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  version: number;
  feature_flag: ExperimentFlag;
}

interface Raw {
  id: number;
  project_id: number;
  name: string;
  description: string;
  start_date: string | null;
  end_date: string | null;
  feature_flag_key: string;
  parameters: string | null;
  secondary_metrics: string | null;
  filters: string | null;
  archived: number;
  exposure_cohort: number | null;
  metrics: string | null;
  metrics_secondary: string | null;
  primary_metrics_ordered_uuids: string | null;
  secondary_metrics_ordered_uuids: string | null;
  stats_config: string | null;
  exposure_criteria: string | null;
  conclusion: string | null;
  conclusion_comment: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  version: number;
  flag_id: number;
  flag_name: string;
  flag_filters: string;
  flag_active: number;
  flag_deleted: number;
  flag_continuity: number;
  flag_version: number;
}

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
const parseList = <T>(text: string | null): T[] => (text === null ? [] : (JSON.parse(text) as T[]));
const parseObject = (text: string | null): Record<string, unknown> | null => (text === null ? null : (JSON.parse(text) as Record<string, unknown>));

const row = (r: Raw): ExperimentRow => ({
  id: r.id,
  project_id: r.project_id,
  name: r.name,
  description: r.description,
  start_date: r.start_date,
  end_date: r.end_date,
  feature_flag_key: r.feature_flag_key,
  parameters: parse(r.parameters),
  secondary_metrics: parse(r.secondary_metrics),
  filters: parse(r.filters),
  archived: r.archived === 1,
  exposure_cohort: r.exposure_cohort,
  metrics: parseList(r.metrics),
  metrics_secondary: parseList(r.metrics_secondary),
  primary_metrics_ordered_uuids: parseList(r.primary_metrics_ordered_uuids),
  secondary_metrics_ordered_uuids: parseList(r.secondary_metrics_ordered_uuids),
  stats_config: parseObject(r.stats_config),
  exposure_criteria: parseObject(r.exposure_criteria),
  conclusion: r.conclusion,
  conclusion_comment: r.conclusion_comment,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
  version: r.version,
  feature_flag: {
    id: r.flag_id,
    project_id: r.project_id,
    key: r.feature_flag_key,
    name: r.flag_name,
    filters: JSON.parse(r.flag_filters) as Record<string, unknown>,
    active: r.flag_active === 1,
    deleted: r.flag_deleted === 1,
    ensure_experience_continuity: r.flag_continuity === 1,
    version: r.flag_version,
  },
});

/*
 * Visibility: an experiment is shown only once its flag exists AND was created for it (the flag's
 * experiment_id). Creation appends the experiment first and the flag second, so an experiment whose
 * flag append never happened (crash, or a concurrent create took the key) is invisible even before
 * the compensating ExperimentCreationAbandoned event lands.
 */
const VISIBLE = `FROM experiments e JOIN feature_flags f
  ON f.project_id = e.project_id AND f.key = e.feature_flag_key AND f.experiment_id = e.id
  WHERE e.deleted = 0 AND e.abandoned = 0`;
const COLUMNS = `e.*, f.id AS flag_id, f.name AS flag_name, f.filters AS flag_filters, f.active AS flag_active,
  f.deleted AS flag_deleted, f.ensure_experience_continuity AS flag_continuity, f.version AS flag_version`;

export function experimentQueries(db: SqlSession) {
  return {
    /** The first id to try for a new experiment (ids are global, as PostHog's). */
    nextId: async () => (await db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM experiments'))!.id,

    byId: async (projectId: number, id: number): Promise<ExperimentRow | undefined> => {
      const r = await db.get<Raw>(`SELECT ${COLUMNS} ${VISIBLE} AND e.project_id = ? AND e.id = ?`, projectId, id);
      return r ? row(r) : undefined;
    },

    /** Newest first; archived experiments only when asked for (PostHog hides them by default). */
    list: async (projectId: number, limit: number, offset: number, archived = false) => {
      const where = `${VISIBLE} AND e.project_id = ? AND e.archived = ?`;
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n ${where}`, projectId, archived ? 1 : 0))!.n;
      const rows = await db.all<Raw>(`SELECT ${COLUMNS} ${where} ORDER BY e.id DESC LIMIT ? OFFSET ?`, projectId, archived ? 1 : 0, limit, offset);
      return { count, rows: rows.map(row) };
    },
  };
}

export type ExperimentQueries = ReturnType<typeof experimentQueries>;
