import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/**
 * One stream per saved (shared) experiment metric. Ids are global integers, as PostHog's: creating
 * `experimentsavedmetric-<id>` with "no stream" is what claims an id.
 */
export const experimentSavedMetricStream = (id: number) => `experimentsavedmetric-${id}`;

const Ids = { savedMetricId: z.number().int().positive(), projectId: z.number().int().positive() };

/** The writable fields, as the API names them; `query` is an `ExperimentMetric` the service checked. */
export const SavedMetricFields = z.object({
  name: z.string().min(1).max(400),
  description: z.string().max(400).nullable(),
  query: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
});
export type SavedMetricFields = z.infer<typeof SavedMetricFields>;

export const ExperimentSavedMetricCreated = defineEvent(
  'ExperimentSavedMetricCreated',
  z.object({ ...Ids, fields: SavedMetricFields, createdBy: z.number().int().nullable() }),
);

/** Only the fields that changed. */
export const ExperimentSavedMetricUpdated = defineEvent('ExperimentSavedMetricUpdated', z.object({ ...Ids, changes: SavedMetricFields.partial() }));

/** Hard delete in PostHog: the metric and its links to experiments go (the projection drops the links). */
export const ExperimentSavedMetricDeleted = defineEvent('ExperimentSavedMetricDeleted', z.object(Ids));

export const experimentSavedMetricEvents = [ExperimentSavedMetricCreated, ExperimentSavedMetricUpdated, ExperimentSavedMetricDeleted] as const;
export type ExperimentSavedMetricEvent = EventOf<(typeof experimentSavedMetricEvents)[number]>;
