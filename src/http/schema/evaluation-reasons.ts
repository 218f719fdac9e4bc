import { z } from 'zod';

/** `?distinct_id=` (required, PostHog's message) and `?groups=` (a JSON object: group type -> key). */
export const EvaluationReasonsQuery = z.object({
  distinct_id: z
    .string({ error: 'distinct_id is required' })
    .min(1, { error: 'distinct_id is required' })
    .meta({ description: 'The person to evaluate the flags for.', examples: ['user-1'] }),
  groups: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return {};
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        ctx.addIssue({ code: 'custom', message: 'groups must be a JSON object of group type to group key.' });
        return z.NEVER;
      }
      return Object.fromEntries(Object.entries(parsed).map(([type, key]) => [type, String(key)]));
    })
    .meta({ description: 'JSON object: group type name to group key, as `/flags` takes `groups`.', examples: ['{"company":"acme"}'] }),
});

const Filter = z.object({
  key: z.string(),
  type: z.string().nullable(),
  operator: z.string(),
  value: z.unknown(),
  found: z.boolean().meta({ description: 'Whether the person (or group) has the property.' }),
  actual: z.unknown().meta({ description: 'Its value (cohort filters: the membership).' }),
  matched: z.boolean(),
});

const Condition = z.object({
  index: z.number().int(),
  rollout_percentage: z.number().nullable(),
  aggregation_group_type_index: z.number().int().nullable(),
  bucketed_on: z.string().nullable().meta({ description: 'The id hashed: the person bucket, or the group key.' }),
  hash: z.number().nullable().meta({ description: 'h(flag key, bucketed_on): in the rollout when at most rollout_percentage / 100.' }),
  properties: z.array(Filter),
  outcome: z.enum(['match', 'no_match', 'out_of_rollout', 'no_group_type', 'not_evaluated']),
  variant_override: z.string().nullable(),
});

export const FlagFacts = z
  .object({
    id: z.number().int(),
    version: z.number().int(),
    active: z.boolean(),
    distinct_id: z.string(),
    continuity: z.object({ ensure_experience_continuity: z.boolean(), hash_key_override: z.string().nullable(), used: z.boolean() }),
    person_bucket: z.string().meta({ description: 'The id person-level conditions hash: the continuity key when used, else the distinct id.' }),
    enrollment: z.object({ property: z.string(), found: z.boolean(), actual: z.unknown() }).nullable(),
    conditions: z.array(Condition),
    variant: z
      .object({ key: z.string(), hash: z.number(), ranges: z.array(z.object({ key: z.string(), from: z.number(), to: z.number() })) })
      .nullable(),
  })
  .meta({ id: 'FlagEvaluationFacts' });

export const FlagReason = z.object({
  value: z.union([z.boolean(), z.string()]),
  evaluation: z.object({
    reason: z.string().meta({ description: 'condition_match, no_condition_match, out_of_rollout_bound, no_group_type, super_condition_value, disabled.' }),
    condition_index: z.number().int().nullable(),
  }),
  facts: FlagFacts.nullable(),
});
