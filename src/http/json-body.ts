import type { FastifyInstance } from 'fastify';
import { checkParsedJson, JsonTooDeepError, MAX_JSON_DEPTH } from '../ingest/json-limits';
import { invalidInput } from './errors';

/**
 * A parsed management body within the JSON limits (see json-limits): nested at most MAX_JSON_DEPTH
 * levels (else a 400 validation error), lone surrogates replaced with U+FFFD.
 */
export function limitJsonBody(value: unknown, text: string): unknown {
  try {
    return checkParsedJson(value, text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw invalidInput(`JSON nested deeper than ${MAX_JSON_DEPTH} levels.`, null);
    throw error;
  }
}

/**
 * Replaces fastify's JSON body parser for every route (the public SDK endpoints install their own
 * raw one). Parsing stays fastify's (prototype-poisoning checks, its parse errors); on top: an empty
 * body means "no body", as Django REST framework reads it, since many clients send
 * `Content-Type: application/json` on every DELETE and action POST; and the JSON limits.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    parse(request, text, (err, value) => {
      if (err) return done(err, undefined);
      try {
        done(null, limitJsonBody(value, text));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  });
}
