/**
 * Errors raised while decoding an ingestion request. They carry the exact status and the
 * Django-style body PostHog answers with, so the route can send them without a mapping table.
 */
export type IngestErrorType = 'validation_error' | 'authentication_error' | 'client_error' | 'server_error';

export interface IngestErrorBody {
  type: IngestErrorType;
  code: string;
  detail: string;
  attr: null;
}

export class IngestError extends Error {
  readonly attr = null;

  constructor(
    readonly status: 400 | 401 | 413 | 503,
    readonly type: IngestErrorType,
    readonly code: string,
    readonly detail: string,
    /** Sent as Retry-After (seconds) when set: the refusal is about load, not about the request. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'IngestError';
  }

  toBody(): IngestErrorBody {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

export const isIngestError = (error: unknown): error is IngestError => error instanceof IngestError;

/** SDKs and users grep for this prefix (PostHog's capture uses it), so every malformed case shares it. */
export const malformedRequest = (reason: string): IngestError =>
  new IngestError(400, 'validation_error', 'invalid_payload', `Malformed request data: ${reason}`);

export const noData = (): IngestError =>
  new IngestError(
    400,
    'validation_error',
    'no_data',
    'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
  );

export const requestTooLarge = (limitBytes: number): IngestError =>
  new IngestError(
    413,
    'client_error',
    'request_too_large',
    `Request size exceeds the limit: the decoded payload is larger than ${limitBytes} bytes.`,
  );

/** Over a limit counted on what would be stored rather than on the decoded request (e.g. `/s/`). */
export const storedTooLarge = (what: string): IngestError =>
  new IngestError(413, 'client_error', 'request_too_large', `Request size exceeds the limit: ${what}.`);

export const missingApiKey = (): IngestError =>
  new IngestError(
    401,
    'authentication_error',
    'missing_api_key',
    'API key not provided. You can find your project API key in your project settings.',
  );

export const invalidApiKey = (): IngestError =>
  new IngestError(
    401,
    'authentication_error',
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in your project settings.',
  );

/** Too many large bodies already inflating or waiting to (decompression-gate.ts): retry shortly. */
export const decompressionBusy = (): IngestError =>
  new IngestError(
    503,
    'server_error',
    'decompression_busy',
    'Too many large compressed requests are being decoded at once. Retry in a few seconds.',
    1,
  );

/** More events in one request than MAX_EVENTS_PER_REQUEST (batch-limits.ts). */
export const tooManyEvents = (limit: number): IngestError =>
  new IngestError(413, 'client_error', 'request_too_large', `Request size exceeds the limit: more than ${limit} events in one request.`);

/** More JSON values in one decoded request than MAX_JSON_VALUES_PER_REQUEST (batch-limits.ts). */
export const tooManyValues = (limit: number): IngestError =>
  new IngestError(413, 'client_error', 'request_too_large', `Request size exceeds the limit: more than ${limit} JSON values in one request.`);
