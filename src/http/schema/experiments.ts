import { z } from 'zod';
import { DomainError } from '../../errors';
import { checkDateOrder, type CreateExperimentInput, type ExperimentPatch } from '../../experiments/input';
import { validateFlagKey } from '../../flags/management';
import { jsonObject, JsonObject } from './common';
import { bool, drf, given, instant, isObject, refuse, refusalIssue, text } from './drf';

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
};

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
const READ_ONLY = ['id', 'feature_flag', 'exposure_cohort', 'created_by', 'created_at', 'updated_at', 'status'];

/** compat §4: PATCH changes only `fields`; every other key but the read-only ones is kept for checkPatch. */
export const UpdateExperimentBody = jsonObject({ ...fields, name: fields.name.optional() })
  .transform((b): ExperimentPatch => {
    const { name, description, start_date, end_date, parameters, secondary_metrics, filters, archived, ...rest } = b;
    const changes = given({ name, description, startDate: start_date, endDate: end_date, parameters, secondaryMetrics: secondary_metrics, filters, archived });
    return { changes, fixed: Object.fromEntries(Object.entries(rest).filter(([k]) => !READ_ONLY.includes(k))) };
  })
  .meta({ examples: [{ start_date: '2026-01-01T00:00:00Z' }] });
