import { z } from 'zod';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import { JsonObject } from './common';

/** PostHog's current experiment fields in the Experiment response (compat §15.1). */
export const ExperimentCurrentFields = {
  metrics: z.array(JsonObject).meta({ description: 'Primary `ExperimentMetric`s, each with its `uuid` and `fingerprint`.' }),
  metrics_secondary: z.array(JsonObject),
  saved_metrics: z.array(JsonObject).meta({ description: 'Attached shared metrics (none can be saved here yet).' }),
  primary_metrics_ordered_uuids: z.array(z.string()),
  secondary_metrics_ordered_uuids: z.array(z.string()),
  stats_config: JsonObject.nullable(),
  exposure_criteria: JsonObject.nullable(),
  conclusion: z.string().nullable(),
  conclusion_comment: z.string().nullable(),
};

export function currentFieldsBody(e: ExperimentRow) {
  return {
    metrics: e.metrics,
    metrics_secondary: e.metrics_secondary,
    saved_metrics: [],
    primary_metrics_ordered_uuids: e.primary_metrics_ordered_uuids,
    secondary_metrics_ordered_uuids: e.secondary_metrics_ordered_uuids,
    stats_config: e.stats_config,
    exposure_criteria: e.exposure_criteria,
    conclusion: e.conclusion,
    conclusion_comment: e.conclusion_comment,
  };
}
