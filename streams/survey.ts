import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** One stream per survey; ids are uuids drawn by the service, as PostHog's. */
export const surveyStream = (id: string) => `survey-${id}`;

const Ids = { surveyId: z.uuid(), projectId: z.number().int().positive() };

/**
 * The survey's writable fields as PostHog's serializer names them (validated by the service, kept
 * as given here so a client reads back what it wrote). Question ids are filled in before append.
 */
export const SurveyFields = z.object({
  name: z.string().min(1),
  description: z.string(),
  type: z.string(),
  schedule: z.string().nullable(),
  linked_flag_id: z.number().int().nullable(),
  questions: z.array(z.record(z.string(), z.unknown())),
  conditions: z.record(z.string(), z.unknown()).nullable(),
  appearance: z.record(z.string(), z.unknown()).nullable(),
  start_date: z.string().nullable(),
  end_date: z.string().nullable(),
  archived: z.boolean(),
  responses_limit: z.number().int().nullable(),
  iteration_count: z.number().int().nullable(),
  iteration_frequency_days: z.number().int().nullable(),
  current_iteration: z.number().int().nullable(),
  current_iteration_start_date: z.string().nullable(),
  enable_partial_responses: z.boolean(),
});
export type SurveyFields = z.infer<typeof SurveyFields>;

export const SurveyCreated = defineEvent(
  'SurveyCreated',
  z.object({
    ...Ids,
    fields: SurveyFields,
    /** The key of the survey's internal targeting flag (who has not yet answered or dismissed it), created next. */
    internalFlagKey: z.string().min(1),
    /** The key of the user targeting flag (`targeting_flag_filters`), created next; null without one. */
    targetingFlagKey: z.string().min(1).nullable(),
    createdBy: z.number().int().nullable(),
  }),
);

/** Only the fields a PATCH changed. */
export const SurveyUpdated = defineEvent('SurveyUpdated', z.object({ ...Ids, changes: SurveyFields.partial() }));

/**
 * A PATCH gave the survey a new targeting flag (created right after, under this key) or removed
 * it (null, once the flag is deleted): the survey always names its flag before the flag exists.
 */
export const SurveyTargetingFlagChanged = defineEvent('SurveyTargetingFlagChanged', z.object({ ...Ids, targetingFlagKey: z.string().min(1).nullable() }));

/** PostHog deletes surveys outright; here the stream stays (the log keeps everything) and the survey is gone from every read. */
export const SurveyDeleted = defineEvent('SurveyDeleted', z.object(Ids));

export const surveyEvents = [SurveyCreated, SurveyUpdated, SurveyTargetingFlagChanged, SurveyDeleted] as const;
export type SurveyEvent = EventOf<(typeof surveyEvents)[number]>;
