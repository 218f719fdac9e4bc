import { z } from 'zod';
import { ApiError } from '../errors';

/** The spec's error body: every error the API answers has this shape. */
export const ErrorBody = z
  .object({
    type: z.string().meta({ description: 'Error class: validation_error, authentication_error, invalid_request, conflict, …' }),
    code: z.string().meta({ description: 'Machine-readable code: invalid_input, not_authenticated, permission_denied, not_found, …' }),
    detail: z.string().meta({ description: 'Human-readable message.' }),
    attr: z.string().nullable().meta({ description: 'The field the error is about, or null.' }),
  })
  .meta({ id: 'Error', examples: [{ type: 'validation_error', code: 'invalid_input', detail: "'limit' must be at most 1000.", attr: 'limit' }] });

/** A refusal raised from inside a schema with the route's own status and body (e.g. DRF's 404 "Invalid cursor"). */
export const raise = (ctx: z.RefinementCtx, error: ApiError) => {
  ctx.addIssue({ code: 'custom', message: error.body.detail, params: { apiError: error } });
  return z.NEVER;
};

/**
 * A plain non-negative decimal integer in the query string (no `1e3`, sign or spaces), small enough to
 * be exact: a value past 2^53 would reach the store as a float it cannot bind as an integer.
 */
const queryInt = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const n = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(n)) {
        ctx.addIssue({ code: 'custom', message: `A valid non-negative integer is required for '${name}'.` });
        return z.NEVER;
      }
      return n;
    });

/** `limit` (default 100, at most 1000 unless the route says otherwise) and `offset`. */
export function pageQuery(options: { defaultLimit?: number; maxLimit?: number } = {}) {
  const maxLimit = options.maxLimit ?? 1000;
  const defaultLimit = options.defaultLimit ?? 100;
  return {
    limit: queryInt('limit')
      .transform((n, ctx) => {
        const limit = n ?? defaultLimit;
        if (limit < 1) ctx.addIssue({ code: 'custom', message: `'limit' must be at least 1.` });
        else if (limit > maxLimit) ctx.addIssue({ code: 'custom', message: `'limit' must be at most ${maxLimit}.` });
        return limit;
      })
      .meta({ description: `Page size (default ${defaultLimit}, at most ${maxLimit}).`, examples: ['100'] }),
    offset: queryInt('offset')
      .transform((n) => n ?? 0)
      .meta({ description: 'How many results to skip (default 0).', examples: ['0'] }),
  };
}

/** The offset envelope of every list: total count, absolute next/previous URLs, the page. */
export const paginated = <T extends z.ZodType>(item: T) =>
  z.object({
    count: z.number().int(),
    next: z.string().nullable().meta({ description: 'Absolute URL of the next page, or null.' }),
    previous: z.string().nullable().meta({ description: 'Absolute URL of the previous page, or null.' }),
    results: z.array(item),
  });

/** Next/previous without a total: for tables too large to count on every page. */
export const uncounted = <T extends z.ZodType>(item: T) =>
  z.object({ next: z.string().nullable(), previous: z.string().nullable(), results: z.array(item) });

/** A project in the path: its numeric id, or `@current` (the key's first project). */
export const ProjectId = z.string().meta({ description: 'Project id, or `@current` for the key\'s first project.', examples: ['1'] });
export const OrganizationId = z.string().meta({ description: 'Organization id (UUID), or `@current`.', examples: ['@current'] });
export const ProjectParams = z.object({ project_id: ProjectId });
export const ProjectObjectParams = z.object({ project_id: ProjectId, id: z.string().meta({ description: 'Object id.' }) });

/** PostHog's nested User (created_by and friends). */
export const UserBasic = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    distinct_id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    is_email_verified: z.boolean(),
  })
  .meta({ id: 'UserBasic' });

/** Any JSON value (stored as the client sent it). */
export const Json = z.unknown();
/** A JSON object whose keys are the client's own (properties, filters). */
export const JsonObject = z.record(z.string(), z.unknown());

/** A management body: an object (absent means `{}`); anything else is a 400 with the route's message. */
export const jsonObject = <S extends z.core.$ZodLooseShape>(shape: S, message = 'Expected a JSON object.') => z.looseObject(shape, { error: message });

/** 204: the write happened, there is no body. */
export const NoContent = z.null().meta({ description: 'No content.' });

/** Ids in the path that a route reads as numbers: anything else matches nothing (404). */
export const numericId = (value: string | undefined): number => (/^\d{1,15}$/.test(value ?? '') ? Number(value) : -1);
