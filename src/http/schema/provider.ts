import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { safeEncode, safeParse, type $ZodType } from 'zod/v4/core';
import { ApiError, invalidInput } from '../errors';

/**
 * The zod half of the route schemas: request parts are parsed with the route's zod schema, and a
 * failure answers in the spec's error shape with the first issue's message and the field it names
 * (the part's own path: `limit`, `filters.groups`), as the handlers' own parsing did before.
 * An absent or `null` body is `{}`, as a management body always was.
 */
export const validatorCompiler: FastifySchemaCompiler<$ZodType> =
  ({ schema, httpPart }) =>
  (data: unknown) => {
    const result = safeParse(schema, httpPart === 'body' ? (data ?? {}) : data);
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0];
    // A refusal a schema raised itself (a route's own message and field) is answered as raised.
    const params = (issue as { params?: { apiError?: unknown; drfCode?: unknown } }).params;
    if (params?.apiError instanceof ApiError) return { error: params.apiError };
    const attr = issue.path.length ? issue.path.map(String).join('.') : null;
    // A field read in DRF's words (schema/drf.ts) answers with DRF's code for the refusal.
    if (typeof params?.drfCode === 'string') return { error: new ApiError(400, { type: 'validation_error', code: params.drfCode, detail: issue.message, attr }) };
    return { error: invalidInput(issue.message, attr) };
  };

/**
 * Responses are written through their zod schema: an answer that does not fit it is a server bug,
 * answered as a 500 in the error shape (and logged), never a half-serialised body.
 */
export const serializerCompiler: FastifySerializerCompiler<$ZodType> =
  ({ schema, method, url }) =>
  (data: unknown) => {
    const result = safeEncode(schema, data);
    if (!result.success) throw new ResponseShapeError(method, url, result.error.issues);
    return JSON.stringify(result.data);
  };

export class ResponseShapeError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly issues: readonly unknown[],
  ) {
    super(`The answer of ${method} ${url} does not fit its response schema: ${JSON.stringify(issues).slice(0, 500)}`);
    this.name = 'ResponseShapeError';
  }
}
