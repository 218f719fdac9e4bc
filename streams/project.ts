import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** Project ids are small integers (PostHog's team ids); the stream name is what makes them unique. */
export const projectStream = (id: number) => `project-${id}`;

export const ProjectCreated = defineEvent(
  'ProjectCreated',
  z.object({
    id: z.number().int().positive(),
    organizationId: z.uuid(),
    name: z.string().min(1).max(200),
    apiToken: z.string().regex(/^phc_[A-Za-z0-9]{20,}$/),
  }),
);

/**
 * The per-project settings the browser SDK's remote config is built from, under PostHog's
 * `PATCH /api/projects/:id/` field names. Absent means "as PostHog defaults it" (off).
 */
export const ProjectSettings = z
  .object({
    autocapture_opt_out: z.boolean(),
    autocapture_exceptions_opt_in: z.boolean(),
    capture_dead_clicks: z.boolean(),
    heatmaps_opt_in: z.boolean(),
    capture_performance_opt_in: z.boolean(),
    autocapture_web_vitals_opt_in: z.boolean(),
    autocapture_web_vitals_allowed_metrics: z.array(z.enum(['CLS', 'FCP', 'INP', 'LCP'])).max(4).nullable(),
    capture_console_log_opt_in: z.boolean(),
    session_recording_opt_in: z.boolean(),
    /** A decimal 0–1 with at most 2 places, kept as PostHog serialises it ("0.50"). */
    session_recording_sample_rate: z.string().regex(/^(0(\.\d{1,2})?|1(\.0{1,2})?)$/).nullable(),
    session_recording_minimum_duration_milliseconds: z.number().int().min(0).max(30_000).nullable(),
    session_recording_linked_flag: z
      .object({ id: z.number().int().positive(), key: z.string().min(1).max(400), variant: z.string().max(400).nullable().optional() })
      .strict()
      .nullable(),
    surveys_opt_in: z.boolean(),
    inject_web_apps: z.boolean(),
  })
  .partial()
  .strict();
export type ProjectSettings = z.infer<typeof ProjectSettings>;

/** Settings changed through the API; only the fields given, folded over the earlier ones. */
export const ProjectSettingsChanged = defineEvent(
  'ProjectSettingsChanged',
  z.object({ id: z.number().int().positive(), changes: ProjectSettings }),
);

/** The project's display name changed (PostHog's `PATCH /api/projects/:id/ {name}`). */
export const ProjectRenamed = defineEvent('ProjectRenamed', z.object({ id: z.number().int().positive(), name: z.string().min(1).max(200) }));

export const projectEvents = [ProjectCreated, ProjectSettingsChanged, ProjectRenamed] as const;
export type ProjectEvent = EventOf<(typeof projectEvents)[number]>;
