import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** One stream per (project, key): creating the stream is what makes a key unique in its project. */
export const featureFlagStream = (projectId: number, key: string) => `featureflag-${projectId}-${key}`;

/** Filters are validated by the flag decider; the contract keeps them as a JSON object. */
const Filters = z.record(z.string(), z.unknown());

export const FeatureFlagCreated = defineEvent(
  'FeatureFlagCreated',
  z.object({
    projectId: z.number().int().positive(),
    key: z.string().min(1).max(400),
    name: z.string(),
    filters: Filters,
    active: z.boolean(),
    ensureExperienceContinuity: z.boolean(),
    createdBy: z.number().int().nullable(),
    /** Set when an experiment created the flag. */
    experimentId: z.number().int().nullable(),
  }),
);

export const FeatureFlagUpdated = defineEvent(
  'FeatureFlagUpdated',
  z.object({
    projectId: z.number().int().positive(),
    key: z.string().min(1),
    name: z.string().optional(),
    filters: Filters.optional(),
    active: z.boolean().optional(),
    ensureExperienceContinuity: z.boolean().optional(),
  }),
);

/** Soft delete: the flag is hidden and stops evaluating; its key stays taken. */
export const FeatureFlagDeleted = defineEvent(
  'FeatureFlagDeleted',
  z.object({ projectId: z.number().int().positive(), key: z.string().min(1) }),
);

export const featureFlagEvents = [FeatureFlagCreated, FeatureFlagUpdated, FeatureFlagDeleted] as const;
export type FeatureFlagEvent = EventOf<(typeof featureFlagEvents)[number]>;
