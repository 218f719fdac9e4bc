import { experimentEvents, type ExperimentUpdatedData } from '../streams';
import { defineProjection } from './define-projection';
import { stableJson } from './json';
import type { SqlSession } from '../src/store/sql';

/** JSON columns: null stays SQL NULL, anything else is stored with sorted keys (stable digests). */
const jsonOrNull = (value: unknown): string | null => (value === undefined || value === null ? null : stableJson(value));

/** Column of each updatable field of ExperimentUpdated, and how its value is stored. */
const UPDATABLE: Record<string, { column: string; encode: (v: unknown) => string | number | null }> = {
  name: { column: 'name', encode: (v) => v as string },
  description: { column: 'description', encode: (v) => v as string },
  startDate: { column: 'start_date', encode: (v) => (v as string | null) ?? null },
  endDate: { column: 'end_date', encode: (v) => (v as string | null) ?? null },
  parameters: { column: 'parameters', encode: jsonOrNull },
  secondaryMetrics: { column: 'secondary_metrics', encode: jsonOrNull },
  filters: { column: 'filters', encode: jsonOrNull },
  archived: { column: 'archived', encode: (v) => (v ? 1 : 0) },
  metrics: { column: 'metrics', encode: jsonOrNull },
  metricsSecondary: { column: 'metrics_secondary', encode: jsonOrNull },
  primaryMetricsOrderedUuids: { column: 'primary_metrics_ordered_uuids', encode: jsonOrNull },
  secondaryMetricsOrderedUuids: { column: 'secondary_metrics_ordered_uuids', encode: jsonOrNull },
  statsConfig: { column: 'stats_config', encode: jsonOrNull },
  exposureCriteria: { column: 'exposure_criteria', encode: jsonOrNull },
  conclusion: { column: 'conclusion', encode: (v) => (v as string | null) ?? null },
  conclusionComment: { column: 'conclusion_comment', encode: (v) => (v as string | null) ?? null },
};

async function applyUpdate(db: SqlSession, d: ExperimentUpdatedData, at: string) {
  const fields = Object.keys(UPDATABLE).filter((k) => k in d && d[k as keyof ExperimentUpdatedData] !== undefined);
  // The SQL text depends only on which fields changed, so the statement cache stays small.
  const set = fields.map((k) => `${UPDATABLE[k].column} = ?`);
  const values = fields.map((k) => UPDATABLE[k].encode(d[k as keyof ExperimentUpdatedData]));
  await db.run(
    `UPDATE experiments SET ${[...set, 'updated_at = ?', 'version = version + 1'].join(', ')} WHERE id = ?`,
    ...values,
    at,
    d.experimentId,
  );
}

/**
 * Experiments read model: one row per experiment stream, abandoned and deleted ones included (they
 * keep their ids). Whether an experiment is visible also depends on its flag, which the queries join.
 */
export const experimentsProjection = defineProjection({
  name: 'experiments',
  // 2: PostHog's current fields (metrics, stats_config, exposure_criteria, conclusion...).
  version: 2,
  store: 'readmodels',
  reads: experimentEvents,
  tables: [
    {
      name: 'experiments',
      columns: {
        id: 'integer',
        project_id: 'integer',
        name: 'text',
        description: 'text',
        start_date: 'text?',
        end_date: 'text?',
        feature_flag_key: 'text',
        parameters: 'text?',
        secondary_metrics: 'text?',
        filters: 'text?',
        archived: 'integer',
        exposure_cohort: 'integer?',
        metrics: 'text?',
        metrics_secondary: 'text?',
        primary_metrics_ordered_uuids: 'text?',
        secondary_metrics_ordered_uuids: 'text?',
        stats_config: 'text?',
        exposure_criteria: 'text?',
        conclusion: 'text?',
        conclusion_comment: 'text?',
        created_by: 'integer?',
        created_at: 'text',
        updated_at: 'text',
        deleted: 'integer',
        abandoned: 'integer',
        version: 'integer',
      },
      primaryKey: ['id'],
      indexes: { experiments_by_project: ['project_id', 'id'] },
      orderBy: 'id',
    },
  ],
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    switch (e.type) {
      case 'ExperimentCreated': {
        const d = e.data;
        await db.run(
          `INSERT INTO experiments (id, project_id, name, description, start_date, end_date, feature_flag_key, parameters,
             secondary_metrics, filters, archived, exposure_cohort, metrics, metrics_secondary, primary_metrics_ordered_uuids,
             secondary_metrics_ordered_uuids, stats_config, exposure_criteria, conclusion, conclusion_comment,
             created_by, created_at, updated_at, deleted, abandoned, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 1)`,
          d.experimentId,
          d.projectId,
          d.name,
          d.description,
          d.startDate,
          d.endDate,
          d.featureFlagKey,
          jsonOrNull(d.parameters),
          jsonOrNull(d.secondaryMetrics),
          jsonOrNull(d.filters),
          d.archived ? 1 : 0,
          jsonOrNull(d.metrics),
          jsonOrNull(d.metricsSecondary),
          jsonOrNull(d.primaryMetricsOrderedUuids),
          jsonOrNull(d.secondaryMetricsOrderedUuids),
          jsonOrNull(d.statsConfig),
          jsonOrNull(d.exposureCriteria),
          d.conclusion ?? null,
          d.conclusionComment ?? null,
          d.createdBy,
          at,
          at,
        );
        return;
      }
      case 'ExperimentUpdated':
        await applyUpdate(db, e.data, at);
        return;
      case 'ExperimentExposureCohortSet':
        await db.run('UPDATE experiments SET exposure_cohort = ?, updated_at = ?, version = version + 1 WHERE id = ?', e.data.cohortId, at, e.data.experimentId);
        return;
      case 'ExperimentDeleted':
        await db.run('UPDATE experiments SET deleted = 1, updated_at = ?, version = version + 1 WHERE id = ?', at, e.data.experimentId);
        return;
      case 'ExperimentCreationAbandoned':
        await db.run('UPDATE experiments SET abandoned = 1, version = version + 1 WHERE id = ?', e.data.experimentId);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
});
