import { z } from 'zod';
import { DomainError } from '../../errors';
import { checkDateOrder, type CreateExperimentInput, type ExperimentPatch } from '../../experiments/input';
import { validateFlagKey } from '../../flags/management';
import { jsonObject, JsonObject } from './common';
import { bool, drf, given, instant, isObject, refuse, refusalIssue, text } from './drf';
import { randomUUID } from 'node:crypto';
import { checkConclusion, checkExposureCriteria, checkMetrics, checkSavedMetricsIds, checkStatsConfig, CONCLUSIONS } from '../../experiments/metrics/fields';
import { ExperimentMetric } from '../../experiments/metrics/schema';
import type { SavedMetricLink } from '../../../streams';

const Parameters = z
  .looseObject({
    feature_flag_variants: z.array(z.object({ key: z.string(), rollout_percentage: z.number() })).optional(),
    minimum_detectable_effect: z.number().optional(),
  })
  .nullable();
const Metric = z.looseObject({ name: z.string().optional(), filters: JsonObject.optional() });

const objectOrNull = (raw: unknown): Record<string, unknown> | null => (raw === null || isObject(raw) ? raw : refuse('Expected a JSON object.', 'invalid'));

/** PostHog refuses global property filters on an experiment's metric filters. */
const filters = drf(
  JsonObject.nullable(),
  (raw) => {
    const v = objectOrNull(raw);
    const properties = v?.properties;
    if (Array.isArray(properties) ? properties.length > 0 : isObject(properties)) refuse('Experiments do not support global filter properties');
    return v;
  },
  'The primary metric: `events` / `actions` (trend or funnel), without global `properties`.',
).optional();

/** The flag key, with the flag's own checks and errors naming the experiment's field. */
const featureFlagKey = drf(
  z.string(),
  (raw) => {
    try {
      return validateFlagKey(raw);
    } catch (err) {
      if (err instanceof DomainError && err.message.includes('required')) refuse(err.message, 'required');
      throw err;
    }
  },
  'The key of the flag created for the experiment (must be new).',
);

const fields = {
  filters,
  start_date: instant('ISO 8601; null: not started.').optional(),
  end_date: instant('ISO 8601; null: not ended.').optional(),
  name: text({ maxLength: 400 }),
  description: text({ blank: true }).optional(),
  parameters: drf(Parameters, objectOrNull, 'Variants (`feature_flag_variants`, control first) and the minimum detectable effect.').optional(),
  secondary_metrics: drf(
    z.array(Metric).nullable(),
    (raw): unknown[] | null => (raw === null || Array.isArray(raw) ? raw : refuse('Expected a list of metrics.', 'invalid')),
    'Secondary metrics, each `{name, filters}`.',
  ).optional(),
  archived: bool().optional(),
  ...currentFields(),
};

/** PostHog's current fields (compat §15.1), each read with PostHog's checks and messages. */
function currentFields() {
  const metricList = (attr: string, description: string) =>
    drf(z.array(ExperimentMetric).nullable(), (raw) => checkMetrics(raw, attr, randomUUID), description).optional();
  const ordering = (description: string) =>
    drf(
      z.array(z.string()).nullable(),
      (raw): string[] | undefined => {
        if (raw === null) return undefined;
        if (!Array.isArray(raw) || !raw.every((u) => typeof u === 'string')) return refuse('Expected a list of metric UUIDs.', 'invalid');
        return raw as string[];
      },
      description,
    ).optional();
  return {
    metrics: metricList('metrics', 'Primary metrics: `ExperimentMetric`s (`mean`, `funnel`, `ratio`, `retention`); the server adds `uuid` and `fingerprint`.'),
    metrics_secondary: metricList('metrics_secondary', 'Secondary metrics, as `metrics`.'),
    primary_metrics_ordered_uuids: ordering('Display order of the primary metrics (every uuid must appear); follows `metrics` when absent.'),
    secondary_metrics_ordered_uuids: ordering('Display order of the secondary metrics.'),
    saved_metrics_ids: drf(
      z.array(z.object({ id: z.number().int(), metadata: z.object({ type: z.enum(['primary', 'secondary']) }).optional() })).nullable(),
      checkSavedMetricsIds,
      'Saved (shared) metrics to link, each `{id, metadata: {type: "primary" | "secondary"}}`; replaces the links; write-only (read back as `saved_metrics`).',
    ).optional(),
    stats_config: drf(
      z
        .looseObject({
          method: z.enum(['bayesian', 'frequentist']).optional(),
          bayesian: z.looseObject({ ci_level: z.number().optional(), difference_type: z.enum(['RELATIVE', 'ABSOLUTE']).optional() }).optional(),
          frequentist: z
            .looseObject({
              alpha: z.number().optional(),
              difference_type: z.enum(['RELATIVE', 'ABSOLUTE']).optional(),
              sequential_testing_enabled: z.boolean().optional(),
              sequential_tuning_parameter: z.number().optional(),
            })
            .optional(),
          cuped: z.looseObject({ enabled: z.boolean().optional(), lookback_days: z.number().int().optional() }).optional(),
          baseline_variant_key: z.string().optional(),
        })
        .nullable(),
      (raw) => checkStatsConfig(raw, []),
      'Statistics: `method` (bayesian or frequentist), per-method settings, `cuped` and `baseline_variant_key`.',
    ).optional(),
    exposure_criteria: drf(
      z.looseObject({ filterTestAccounts: z.boolean().optional(), exposure_config: JsonObject.optional(), multiple_variant_handling: z.enum(['exclude', 'first_seen']).optional() }).nullable(),
      checkExposureCriteria,
      'Who counts as exposed: a custom exposure event or action, test-account filtering, and multiple-variant handling.',
    ).optional(),
    conclusion: drf(z.enum(CONCLUSIONS).nullable(), checkConclusion, 'How the experiment ended.').optional(),
    conclusion_comment: drf(
      z.string().nullable(),
      (raw): string | null => (raw === null || typeof raw === 'string' ? raw : refuse('Not a valid string.', 'invalid')),
      'Free text about the conclusion.',
    ).optional(),
  };
}

/** The current fields as the domain names them (absent keys stay absent). */
function currentChanges(b: {
  metrics?: Record<string, unknown>[];
  metrics_secondary?: Record<string, unknown>[];
  primary_metrics_ordered_uuids?: string[] | undefined;
  secondary_metrics_ordered_uuids?: string[] | undefined;
  stats_config?: Record<string, unknown> | null;
  exposure_criteria?: Record<string, unknown> | null;
  conclusion?: string | null;
  conclusion_comment?: string | null;
  saved_metrics_ids?: SavedMetricLink[] | undefined;
}) {
  return given({
    metrics: b.metrics,
    metricsSecondary: b.metrics_secondary,
    primaryMetricsOrderedUuids: b.primary_metrics_ordered_uuids,
    secondaryMetricsOrderedUuids: b.secondary_metrics_ordered_uuids,
    statsConfig: b.stats_config,
    exposureCriteria: b.exposure_criteria,
    conclusion: b.conclusion,
    conclusionComment: b.conclusion_comment,
    savedMetrics: b.saved_metrics_ids,
  });
}

export const CreateExperimentBody = jsonObject({ ...fields, feature_flag_key: featureFlagKey })
  .transform((b, ctx): CreateExperimentInput => {
    const input = {
      name: b.name,
      description: b.description ?? '',
      startDate: b.start_date ?? null,
      endDate: b.end_date ?? null,
      featureFlagKey: b.feature_flag_key,
      parameters: b.parameters ?? null,
      secondaryMetrics: b.secondary_metrics ?? [],
      filters: b.filters ?? {},
      archived: b.archived ?? false,
      ...currentChanges(b),
    };
    try {
      checkDateOrder(input.startDate, input.endDate);
    } catch (err) {
      if (err instanceof DomainError) return refusalIssue(ctx, err, ['end_date']);
      throw err;
    }
    return input;
  })
  .meta({
    examples: [
      {
        name: 'Checkout test',
        feature_flag_key: 'checkout-test',
        parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
        filters: { events: [{ id: 'purchase', order: 0 }] },
      },
    ],
  });

/** Fields of the response shape a client may send back unchanged; ignored, as DRF ignores read-only fields. */
const READ_ONLY = ['id', 'feature_flag', 'exposure_cohort', 'created_by', 'created_at', 'updated_at', 'status', 'saved_metrics'];

/** compat §4: PATCH changes only `fields`; every other key but the read-only ones is kept for checkPatch. */
export const UpdateExperimentBody = jsonObject({ ...fields, name: fields.name.optional() })
  .transform((b): ExperimentPatch => {
    const {
      name,
      description,
      start_date,
      end_date,
      parameters,
      secondary_metrics,
      filters,
      archived,
      metrics,
      metrics_secondary,
      primary_metrics_ordered_uuids,
      secondary_metrics_ordered_uuids,
      saved_metrics_ids,
      stats_config,
      exposure_criteria,
      conclusion,
      conclusion_comment,
      ...rest
    } = b;
    const current = { metrics, metrics_secondary, primary_metrics_ordered_uuids, secondary_metrics_ordered_uuids, stats_config, exposure_criteria, conclusion, conclusion_comment, saved_metrics_ids };
    const changes = { ...given({ name, description, startDate: start_date, endDate: end_date, parameters, secondaryMetrics: secondary_metrics, filters, archived }), ...currentChanges(current) };
    return { changes, fixed: Object.fromEntries(Object.entries(rest).filter(([k]) => !READ_ONLY.includes(k))) };
  })
  .meta({ examples: [{ start_date: '2026-01-01T00:00:00Z' }] });
