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

export const projectEvents = [ProjectCreated] as const;
export type ProjectEvent = EventOf<(typeof projectEvents)[number]>;
