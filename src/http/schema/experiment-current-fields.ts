import { z } from 'zod';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import type { SavedMetricLinkRow } from '../../../projections/experiment-saved-metrics-queries';
import { JsonObject } from './common';
import { SavedMetricLinkBody } from './experiment-saved-metrics';

/** PostHog's current experiment fields in the Experiment response (compat §15.1). */
export const ExperimentCurrentFields = {
  metrics: z.array(JsonObject).meta({ description: 'Primary `ExperimentMetric`s, each with its `uuid` and `fingerprint`.' }),
  metrics_secondary: z.array(JsonObject),
  saved_metrics: z.array(SavedMetricLinkBody).meta({ description: 'Linked saved (shared) metrics, each with its current `query` and `name` (set with `saved_metrics_ids`).' }),
  primary_metrics_ordered_uuids: z.array(z.string()),
  secondary_metrics_ordered_uuids: z.array(z.string()),
  stats_config: JsonObject.nullable(),
  exposure_criteria: JsonObject.nullable(),
  conclusion: z.string().nullable(),
  conclusion_comment: z.string().nullable(),
};

/** `links`: the experiment's links to saved metrics, as they stand (or stood, with `as_of`). */
export function currentFieldsBody(e: ExperimentRow, links: readonly SavedMetricLinkRow[]) {
  return {
    metrics: e.metrics,
    metrics_secondary: e.metrics_secondary,
    saved_metrics: links.map((l) => ({ id: l.id, experiment: l.experiment_id, saved_metric: l.saved_metric_id, metadata: l.metadata, created_at: l.created_at, query: l.query, name: l.name })),
    primary_metrics_ordered_uuids: e.primary_metrics_ordered_uuids,
    secondary_metrics_ordered_uuids: e.secondary_metrics_ordered_uuids,
    stats_config: e.stats_config,
    exposure_criteria: e.exposure_criteria,
    conclusion: e.conclusion,
    conclusion_comment: e.conclusion_comment,
  };
}
