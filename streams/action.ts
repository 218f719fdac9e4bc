import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/**
 * One stream per action (PostHog's Action: a named set of steps an event may match). Ids are
 * global integers, as PostHog's: creating `action-<id>` with "no stream" is what claims an id.
 */
export const actionStream = (id: number) => `action-${id}`;

const Ids = { actionId: z.number().int().positive(), projectId: z.number().int().positive() };

const Matching = z.enum(['contains', 'regex', 'exact']);

/** One step as PostHog stores it (ActionStepJSON): every key present, unset ones null. */
export const ActionStep = z.object({
  event: z.string().nullable(),
  properties: z.array(z.record(z.string(), z.unknown())).nullable(),
  selector: z.string().nullable(),
  tag_name: z.string().nullable(),
  text: z.string().nullable(),
  text_matching: Matching.nullable(),
  href: z.string().nullable(),
  href_matching: Matching.nullable(),
  url: z.string().nullable(),
  url_matching: Matching.nullable(),
});
export type ActionStep = z.infer<typeof ActionStep>;

/** The writable fields, as the API names them. */
export const ActionFields = z.object({
  name: z.string().max(400).nullable(),
  description: z.string(),
  tags: z.array(z.string()),
  steps: z.array(ActionStep),
  post_to_slack: z.boolean(),
  slack_message_format: z.string().max(1200),
  pinned_at: z.string().nullable(),
});
export type ActionFields = z.infer<typeof ActionFields>;

export const ActionCreated = defineEvent('ActionCreated', z.object({ ...Ids, fields: ActionFields, createdBy: z.number().int().nullable() }));

/** Only the fields that changed. */
export const ActionUpdated = defineEvent('ActionUpdated', z.object({ ...Ids, changes: ActionFields.partial() }));

/** PostHog's soft delete (PATCH `deleted: true`): the action stays readable by id, out of the list. */
export const ActionDeleted = defineEvent('ActionDeleted', z.object(Ids));

/** PATCH `deleted: false` on a deleted action brings it back, as in PostHog. */
export const ActionRestored = defineEvent('ActionRestored', z.object(Ids));

export const actionEvents = [ActionCreated, ActionUpdated, ActionDeleted, ActionRestored] as const;
export type ActionEvent = EventOf<(typeof actionEvents)[number]>;
