import type { FastifyError, FastifyInstance } from 'fastify';
import { HistoryNotReadyError } from '../time-travel';
import { DomainError } from '../errors';
import { ConcurrencyConflictError } from '../runtime/command-handler';
import { isIngestError } from '../ingest/errors';
import { StorageUnavailableError } from '../store/storage-fault';
import { RecordTooLargeError, TransportUnavailableError } from '../store/ingest-transport';

/** PostHog's Django-style error body; every error the API returns has this shape. */
export interface ErrorBody {
  type: string;
  code: string;
  detail: string;
  attr: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.detail);
    this.name = 'ApiError';
  }
}

export const notAuthenticated = () =>
  new ApiError(401, {
    type: 'authentication_error',
    code: 'not_authenticated',
    detail: 'Authentication credentials were not provided.',
    attr: null,
  });

export const authenticationFailed = (detail = 'Personal API key found in request is invalid.') =>
  new ApiError(401, { type: 'authentication_error', code: 'authentication_failed', detail, attr: null });

export const missingScope = (scope: string) =>
  new ApiError(403, {
    type: 'authentication_error',
    code: 'permission_denied',
    detail: `API key missing required scope '${scope}'`,
    attr: null,
  });

export const forbidden = (detail: string) =>
  new ApiError(403, { type: 'authentication_error', code: 'permission_denied', detail, attr: null });

export const notFoundError = (detail = 'Not found.') =>
  new ApiError(404, { type: 'invalid_request', code: 'not_found', detail, attr: null });

export const invalidInput = (detail: string, attr: string | null) =>
  new ApiError(400, { type: 'validation_error', code: 'invalid_input', detail, attr });

/**
 * What the router refuses before any route runs: a path whose percent-encoding is not UTF-8
 * (FST_ERR_BAD_URL) or a path parameter past the router's length limit.
 */
export function badUrl(err: Partial<FastifyError>): ApiError {
  if (err.code === 'FST_ERR_BAD_URL')
    return new ApiError(400, { type: 'invalid_request', code: 'invalid_url', detail: 'The URL path is not valid percent-encoded UTF-8.', attr: null });
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new ApiError(414, { type: 'invalid_request', code: 'uri_too_long', detail: 'A path segment is too long.', attr: null });
  return toApiError(err);
}

function fromDomain(err: DomainError): ApiError {
  switch (err.kind) {
    case 'validation':
      return new ApiError(400, { type: 'validation_error', code: err.code ?? 'invalid_input', detail: err.message, attr: err.attr });
    case 'not_found':
      return notFoundError(err.message);
    case 'conflict':
      return new ApiError(409, { type: 'conflict', code: err.code ?? 'conflict', detail: err.message, attr: err.attr });
    case 'permission':
      return forbidden(err.message);
    case 'authentication':
      return authenticationFailed(err.message);
  }
}

/** Maps anything thrown in a route to one status and the error body; never leaks a stack trace. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomain(err);
  if (isIngestError(err)) return new ApiError(err.status, err.toBody());
  if (err instanceof StorageUnavailableError) return new ApiError(503, err.toBody());
  if (err instanceof HistoryNotReadyError) return new ApiError(503, { type: 'server_error', code: 'history_not_ready', detail: err.message, attr: null });
  if (err instanceof TransportUnavailableError) return new ApiError(503, err.toBody());
  if (err instanceof RecordTooLargeError)
    return new ApiError(413, { type: 'client_error', code: 'request_too_large', detail: `Request size exceeds the limit: ${err.message}.`, attr: null });
  if (err instanceof ConcurrencyConflictError)
    return new ApiError(409, {
      type: 'conflict',
      code: 'write_conflict',
      detail: 'The resource was changed concurrently; retry the request.',
      attr: null,
    });
  const fe = err as Partial<FastifyError>;
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiError(413, { type: 'client_error', code: 'request_too_large', detail: 'Request body is too large.', attr: null });
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new ApiError(415, { type: 'invalid_request', code: 'unsupported_media_type', detail: fe.message ?? 'Unsupported media type.', attr: null });
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (fe.statusCode === 400 && fe instanceof SyntaxError))
    return new ApiError(400, { type: 'validation_error', code: 'parse_error', detail: `JSON parse error - ${fe.message}`, attr: null });
  if (fe.validation) return invalidInput(fe.message ?? 'Invalid input.', null);
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500)
    return new ApiError(fe.statusCode, { type: 'invalid_request', code: 'invalid_request', detail: fe.message ?? 'Bad request.', attr: null });
  return new ApiError(500, { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
}

/** What any error answers: its status and body, and when to retry (a `retry-after` header) if it says. */
export function errorAnswer(err: unknown): { api: ApiError; retryAfter: string | undefined } {
  return { api: toApiError(err), retryAfter: isIngestError(err) && err.retryAfterSeconds !== undefined ? String(err.retryAfterSeconds) : undefined };
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => {
    const { api, retryAfter } = errorAnswer(err);
    if (retryAfter !== undefined) reply.header('retry-after', retryAfter);
    if (api.status >= 500) request.log.error({ err }, 'unhandled error');
    return reply.status(api.status).send(api.body);
  });
  app.setNotFoundHandler((_request, reply) => reply.status(404).send(notFoundError().body));
}
