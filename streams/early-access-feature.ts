import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** One stream per early access feature; ids are uuids drawn by the service, as PostHog's. */
export const earlyAccessFeatureStream = (id: string) => `earlyaccessfeature-${id}`;

export const EARLY_ACCESS_STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const;
export const EarlyAccessStage = z.enum(EARLY_ACCESS_STAGES);
export type EarlyAccessStage = z.infer<typeof EarlyAccessStage>;

const Ids = { featureId: z.uuid(), projectId: z.number().int().positive() };

export const EarlyAccessFields = z.object({
  name: z.string().min(1).max(200),
  description: z.string(),
  stage: EarlyAccessStage,
  documentation_url: z.string(),
  payload: z.record(z.string(), z.unknown()),
  assignee: z.object({ type: z.enum(['user', 'role']), name: z.string() }).nullable(),
});
export type EarlyAccessFields = z.infer<typeof EarlyAccessFields>;

/**
 * The feature and the key of the flag it owns. With `flagCreated: false` the service creates that
 * flag next: the feature becomes visible when the flag's creation follows it in the log (the
 * early-access projection links them), so a feature whose flag never came is never seen.
 */
export const EarlyAccessFeatureCreated = defineEvent(
  'EarlyAccessFeatureCreated',
  z.object({ ...Ids, fields: EarlyAccessFields, flagKey: z.string().min(1), flagCreated: z.boolean(), createdBy: z.number().int().nullable() }),
);

export const EarlyAccessFeatureUpdated = defineEvent('EarlyAccessFeatureUpdated', z.object({ ...Ids, changes: EarlyAccessFields.partial() }));

/** The flag append was refused (its key was taken meanwhile): the feature never becomes visible. */
export const EarlyAccessFeatureAbandoned = defineEvent('EarlyAccessFeatureAbandoned', z.object({ ...Ids, reason: z.string() }));

/** The feature is gone; its flag stays (without enrollment), as in PostHog. */
export const EarlyAccessFeatureDeleted = defineEvent('EarlyAccessFeatureDeleted', z.object(Ids));

export const earlyAccessFeatureEvents = [EarlyAccessFeatureCreated, EarlyAccessFeatureUpdated, EarlyAccessFeatureAbandoned, EarlyAccessFeatureDeleted] as const;
export type EarlyAccessFeatureEvent = EventOf<(typeof earlyAccessFeatureEvents)[number]>;
