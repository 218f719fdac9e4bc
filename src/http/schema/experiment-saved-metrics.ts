import { z } from 'zod';
import type { SavedMetricFields } from '../../../streams';
import { ExperimentMetric } from '../../experiments/metrics/schema';
import { checkSavedMetricQuery } from '../../experiments/saved-metrics/query';
import { JsonObject, jsonObject, UserBasic } from './common';
import { drf, given, refuse, refuseNulCharacters, text } from './drf';

/** PostHog's ExperimentSavedMetricSerializer fields, with its limits and messages. */
const fields = {
  name: text({ maxLength: 400 }).meta({ description: 'Unique within the project, ignoring case.' }),
  description: drf(
    z.string().max(400).nullable(),
    (raw): string | null => {
      if (raw === null) return null;
      if (typeof raw !== 'string') return refuse('Not a valid string.', 'invalid');
      if (raw.length > 400) return refuse('Ensure this field has no more than 400 characters.', 'max_length');
      return refuseNulCharacters(raw);
    },
    'What the metric measures.',
  ).optional(),
  query: drf(
    ExperimentMetric,
    (raw) => (raw === undefined ? refuse('This field is required.', 'required') : checkSavedMetricQuery(raw)),
    "An `ExperimentMetric` (`mean`, `funnel`, `ratio` or `retention`), checked as an experiment's `metrics` are; legacy kinds are refused. The server gives it a `uuid`.",
  ),
  tags: drf(
    z.array(z.string()),
    (raw): string[] => (Array.isArray(raw) && raw.every((t) => typeof t === 'string') ? [...new Set(raw)] : refuse('Expected a list of items but got type "' + typeof raw + '".', 'not_a_list')),
    'Free-form tags.',
  ).optional(),
};

export const CreateSavedMetricBody = jsonObject(fields)
  .transform((b): SavedMetricFields => ({ name: b.name, description: b.description ?? null, query: b.query, tags: b.tags ?? [] }))
  .meta({
    examples: [
      { name: 'Purchases', description: 'Share of users who buy', query: { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] } },
    ],
  });

/** Read-only fields a client sends back are ignored, as DRF ignores them. */
export const UpdateSavedMetricBody = jsonObject({ ...fields, name: fields.name.optional(), query: fields.query.optional() })
  .transform(({ name, description, query, tags }): Partial<SavedMetricFields> => given({ name, description, query, tags }))
  .meta({ examples: [{ name: 'Purchases (all platforms)' }] });

export const SavedMetric = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    query: JsonObject,
    created_by: UserBasic.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'ExperimentSavedMetric' });

/** An experiment's link to a saved metric (PostHog's ExperimentToSavedMetric), with the metric's current query and name. */
export const SavedMetricLinkBody = z
  .object({
    id: z.number().int(),
    experiment: z.number().int(),
    saved_metric: z.number().int(),
    metadata: JsonObject,
    created_at: z.string(),
    query: JsonObject,
    name: z.string(),
  })
  .meta({ id: 'ExperimentToSavedMetric' });
