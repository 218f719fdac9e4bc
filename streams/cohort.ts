import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** One stream per cohort; integer ids claimed by creating the stream (see experimentStream). */
export const cohortStream = (id: number) => `cohort-${id}`;

const Ids = {
  cohortId: z.number().int().positive(),
  projectId: z.number().int().positive(),
};

/**
 * A cohort whose membership the cohorts projection can compute from the log alone. Only one kind
 * exists so far: persons who sent `$feature_flag_called` for `flagKey` at or after `since` (an
 * experiment's exposure cohort). New kinds get new optional fields and a schema version.
 */
export const CohortCreated = defineEvent(
  'CohortCreated',
  z.object({
    ...Ids,
    name: z.string().min(1),
    description: z.string(),
    /** PostHog's filter JSON for the same membership, returned as is to clients. */
    filters: z.record(z.string(), z.unknown()),
    exposure: z.object({ flagKey: z.string().min(1), since: z.string() }),
    /** The experiment this is the exposure cohort of, if any. */
    experimentId: z.number().int().positive().nullable(),
    createdBy: z.number().int().nullable(),
  }),
);

/** Soft delete; also the compensation when linking an exposure cohort to its experiment fails. */
export const CohortDeleted = defineEvent('CohortDeleted', z.object(Ids));

export const cohortEvents = [CohortCreated, CohortDeleted] as const;
export type CohortEvent = EventOf<(typeof cohortEvents)[number]>;
export type CohortCreatedData = z.infer<typeof CohortCreated.schema>;
