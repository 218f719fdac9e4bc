import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/**
 * One stream per experiment. Ids are global integers: creating `experiment-<id>` with "no stream" is
 * what claims an id, so two concurrent creates can never share one.
 */
export const experimentStream = (id: number) => `experiment-${id}`;

const Ids = {
  experimentId: z.number().int().positive(),
  projectId: z.number().int().positive(),
};

/** ISO 8601, normalised by the service with toISOString(); null means "not set". */
const Instant = z.string().nullable();

/**
 * PostHog keeps parameters, secondary_metrics and filters as free JSON; the service validates the
 * parts it reads (variants, metrics) and the contract stores the rest as given.
 */
const FreeJson = z.unknown();

/** One link to a saved metric: its id and PostHog's metadata (`{type: "primary" | "secondary"}`). */
export const SavedMetricLink = z.object({ savedMetricId: z.number().int().positive(), metadata: z.record(z.string(), z.unknown()) });
export type SavedMetricLink = z.infer<typeof SavedMetricLink>;
const MetricList = z.array(z.record(z.string(), z.unknown()));

/**
 * PostHog's current experiment fields (compat §15.1), added after the first events were written:
 * every one is optional, so events recorded before them read unchanged (absent = the default).
 */
const currentFields = {
  metrics: MetricList.optional(),
  metricsSecondary: MetricList.optional(),
  primaryMetricsOrderedUuids: z.array(z.string()).optional(),
  secondaryMetricsOrderedUuids: z.array(z.string()).optional(),
  statsConfig: z.record(z.string(), z.unknown()).nullable().optional(),
  exposureCriteria: z.record(z.string(), z.unknown()).nullable().optional(),
  conclusion: z.string().nullable().optional(),
  conclusionComment: z.string().nullable().optional(),
  /** The saved metrics linked (PostHog's `saved_metrics_ids`); a present list replaces the links. */
  savedMetrics: z.array(SavedMetricLink).optional(),
};

export const ExperimentCreated = defineEvent(
  'ExperimentCreated',
  z.object({
    ...Ids,
    name: z.string().min(1),
    description: z.string(),
    startDate: Instant,
    endDate: Instant,
    featureFlagKey: z.string().min(1),
    parameters: FreeJson.optional(),
    secondaryMetrics: FreeJson.optional(),
    filters: FreeJson.optional(),
    archived: z.boolean(),
    createdBy: z.number().int().nullable(),
    ...currentFields,
  }),
);

/** Only the fields that changed are present; a present null clears the field. */
export const ExperimentUpdated = defineEvent(
  'ExperimentUpdated',
  z.object({
    ...Ids,
    name: z.string().min(1).optional(),
    description: z.string().optional(),
    startDate: Instant.optional(),
    endDate: Instant.optional(),
    parameters: FreeJson.optional(),
    secondaryMetrics: FreeJson.optional(),
    filters: FreeJson.optional(),
    archived: z.boolean().optional(),
    ...currentFields,
  }),
);

export const ExperimentExposureCohortSet = defineEvent(
  'ExperimentExposureCohortSet',
  z.object({ ...Ids, cohortId: z.number().int().positive() }),
);

/** Soft delete (the service soft-deletes the linked flag first). */
export const ExperimentDeleted = defineEvent('ExperimentDeleted', z.object(Ids));

/**
 * Compensation: the experiment was recorded but its flag could not be created (e.g. a concurrent
 * create took the key). The experiment never becomes visible; its id stays used.
 */
export const ExperimentCreationAbandoned = defineEvent(
  'ExperimentCreationAbandoned',
  z.object({ ...Ids, reason: z.string() }),
);

export const experimentEvents = [
  ExperimentCreated,
  ExperimentUpdated,
  ExperimentExposureCohortSet,
  ExperimentDeleted,
  ExperimentCreationAbandoned,
] as const;
export type ExperimentEvent = EventOf<(typeof experimentEvents)[number]>;
export type ExperimentCreatedData = z.infer<typeof ExperimentCreated.schema>;
export type ExperimentUpdatedData = z.infer<typeof ExperimentUpdated.schema>;
