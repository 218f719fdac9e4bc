import { ExperimentCreated, ExperimentUpdated, experimentSavedMetricEvents, type SavedMetricLink } from '../streams';
import type { SqlSession } from '../src/store/sql';
import { defineProjection } from './define-projection';
import { stableJson } from './json';
import { fieldsResourceTable, insertFieldsResource, markFieldsResourceDeleted, updateFieldsResource } from './fields-resource';

const METRICS = 'experiment_saved_metrics';

/**
 * Replaces an experiment's links with `links`, as PostHog's PATCH does (it deletes the links and
 * creates the given ones). Link ids are numbered in log order (one more than the last link ever
 * made; removed links keep their rows, marked gone), so a rebuild numbers them alike.
 */
async function setLinks(db: SqlSession, projectId: number, experimentId: number, links: readonly SavedMetricLink[], at: string, position: number) {
  await db.run('UPDATE experiment_saved_metric_links SET gone = 1 WHERE experiment_id = ? AND gone = 0', experimentId);
  for (const [i, link] of links.entries()) {
    // The service checked the metric exists in the project; a link to anything else is never made.
    const metric = await db.get<{ id: number }>('SELECT id FROM experiment_saved_metrics WHERE id = ? AND project_id = ? AND deleted = 0', link.savedMetricId, projectId);
    if (!metric) continue;
    const id = (await db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM experiment_saved_metric_links'))!.id;
    await db.run(
      `INSERT INTO experiment_saved_metric_links (id, project_id, experiment_id, saved_metric_id, metadata, created_at, created_position, link_index, gone)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
      id,
      projectId,
      experimentId,
      link.savedMetricId,
      stableJson(link.metadata),
      at,
      position,
      i,
    );
  }
}

/**
 * Saved (shared) experiment metrics and their links to experiments. The links come from the
 * experiment's own events (`savedMetrics` on ExperimentCreated/ExperimentUpdated); deleting a
 * saved metric removes its links, as PostHog's cascade does.
 */
export const experimentSavedMetricsProjection = defineProjection({
  name: 'experiment_saved_metrics',
  version: 1,
  store: 'readmodels',
  reads: [...experimentSavedMetricEvents, ExperimentCreated, ExperimentUpdated],
  tables: [
    fieldsResourceTable(METRICS, 'text'),
    {
      name: 'experiment_saved_metric_links',
      columns: {
        id: 'integer',
        project_id: 'integer',
        experiment_id: 'integer',
        saved_metric_id: 'integer',
        metadata: 'text',
        created_at: 'text',
        created_position: 'integer',
        link_index: 'integer',
        gone: 'integer',
      },
      primaryKey: ['id'],
      indexes: {
        experiment_saved_metric_links_by_experiment: ['experiment_id', 'gone'],
        experiment_saved_metric_links_by_metric: ['saved_metric_id', 'gone'],
      },
      orderBy: 'id',
    },
  ],
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    switch (e.type) {
      case 'ExperimentCreated':
      case 'ExperimentUpdated':
        if (e.data.savedMetrics !== undefined) await setLinks(db, e.data.projectId, e.data.experimentId, e.data.savedMetrics, at, e.position);
        return;
      case 'ExperimentSavedMetricCreated': {
        const d = e.data;
        await insertFieldsResource(db, METRICS, { id: d.savedMetricId, projectId: d.projectId, name: d.fields.name, fields: d.fields, createdBy: d.createdBy }, at);
        return;
      }
      case 'ExperimentSavedMetricUpdated':
        await updateFieldsResource(db, METRICS, e.data.savedMetricId, e.data.changes, at, (fields) => String(fields.name));
        return;
      case 'ExperimentSavedMetricDeleted':
        await markFieldsResourceDeleted(db, METRICS, e.data.savedMetricId, true, at);
        await db.run('UPDATE experiment_saved_metric_links SET gone = 1 WHERE saved_metric_id = ?', e.data.savedMetricId);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
});
