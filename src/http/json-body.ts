import type { FastifyInstance } from 'fastify';
import { checkParsedJson, JsonTooDeepError, MAX_JSON_DEPTH, wellFormedText } from '../ingest/json-limits';
import { ApiError, invalidInput } from './errors';

const parseError = (detail: string) =>
  new ApiError(400, { type: 'validation_error', code: 'parse_error', detail: `JSON parse error - ${detail}`, attr: null });

/**
 * Parses a management API JSON body. An empty body means "no body", as Django REST framework reads
 * it: many clients send `Content-Type: application/json` on every DELETE and action POST. A body
 * nested past MAX_JSON_DEPTH is refused; lone surrogates become U+FFFD (see json-limits).
 */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  const text = wellFormedText(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw parseError(error instanceof Error ? error.message : String(error));
  }
  try {
    return checkParsedJson(value, text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw invalidInput(`JSON nested deeper than ${MAX_JSON_DEPTH} levels.`, null);
    throw error;
  }
}

/** Replaces fastify's JSON parser for every route (public SDK endpoints install their own raw one). */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
