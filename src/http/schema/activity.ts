import { z } from 'zod';
import { ACTIVITY_SCOPES } from '../../../projections/activity';
import { UserBasic } from './common';

/** A non-negative decimal integer in the query string, or absent. */
const queryInt = (name: string, min: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min) {
        ctx.addIssue({ code: 'custom', message: `A valid integer of at least ${min} is required for '${name}'.` });
        return z.NEVER;
      }
      return n;
    });

/** An instant in the query string (any form Date.parse reads), as the canonical ISO text entries are written in. */
const queryInstant = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const ms = Date.parse(value);
      if (Number.isNaN(ms)) {
        ctx.addIssue({ code: 'custom', message: `'${name}' must be an ISO 8601 date or time.` });
        return z.NEVER;
      }
      return new Date(ms).toISOString();
    })
    .meta({ description: `ISO 8601 time (inclusive).`, examples: ['2026-01-01T00:00:00Z'] });

/** The project log's filters (compat §12) and its offset paging, as the other lists page. */
export const ProjectActivityQuery = z.object({
  limit: queryInt('limit', 1)
    .transform((n, ctx) => {
      if (n !== undefined && n > 1000) ctx.addIssue({ code: 'custom', message: `'limit' must be at most 1000.` });
      return n ?? 100;
    })
    .meta({ description: 'Page size (default 100, at most 1000).' }),
  offset: queryInt('offset', 0)
    .transform((n) => n ?? 0)
    .meta({ description: 'How many entries to skip (default 0).' }),
  scope: z.enum(ACTIVITY_SCOPES).optional().meta({ description: 'Only this kind of item.' }),
  item_id: z.string().optional().meta({ description: 'Only this item (with `scope`).' }),
  user: queryInt('user', 0).meta({ description: 'Only changes made by this user id.' }),
  after: queryInstant('after'),
  before: queryInstant('before'),
});

/** PostHog's per-resource paging: `limit` (default 10) and 1-based `page`. */
export const ResourceActivityQuery = z.object({
  limit: queryInt('limit', 1)
    .transform((n, ctx) => {
      if (n !== undefined && n > 1000) ctx.addIssue({ code: 'custom', message: `'limit' must be at most 1000.` });
      return n ?? 10;
    })
    .meta({ description: 'Page size (default 10, at most 1000).' }),
  page: queryInt('page', 1)
    .transform((n) => n ?? 1)
    .meta({ description: 'Page number, from 1.' }),
});

const SystemUser = z.object({ first_name: z.literal('System'), email: z.null(), is_system: z.literal(true) }).meta({ id: 'SystemUser' });

const Change = z.object({
  type: z.enum(ACTIVITY_SCOPES),
  action: z.enum(['created', 'changed', 'deleted']),
  field: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});

export const ActivityEntry = z
  .object({
    id: z.string().meta({ description: 'The id of the log event the entry comes from.' }),
    user: z.union([UserBasic, SystemUser]).meta({ description: 'Who made the change; `System` for the CLI, scheduler and workers.' }),
    api_key: z
      .object({ id: z.string(), label: z.string() })
      .nullable()
      .meta({ description: 'The personal API key the change was made with (its label), when one was.' }),
    actor_type: z.enum(['user', 'cli', 'system', 'scheduler', 'worker', 'project_key']),
    unread: z.boolean(),
    is_system: z.boolean(),
    was_impersonated: z.boolean(),
    organization_id: z.string().nullable(),
    activity: z.string().meta({ description: '`created`, `updated`, `deleted`, `backfill requested`.' }),
    scope: z.enum(ACTIVITY_SCOPES),
    item_id: z.string(),
    detail: z.object({
      id: z.string(),
      changes: z.array(Change).meta({ description: 'Each changed field with its value before and after (credentials show as `masked`).' }),
      merge: z.null(),
      trigger: z.null(),
      name: z.string().nullable(),
      short_id: z.null(),
      type: z.null(),
    }),
    created_at: z.string(),
  })
  .meta({ id: 'ActivityLogEntry' });

export const ResourceActivityPage = z.object({
  results: z.array(ActivityEntry),
  next: z.string().nullable(),
  previous: z.string().nullable(),
  total_count: z.number().int(),
});
