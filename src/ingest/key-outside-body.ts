import { nonEmptyString } from './json-object';

/**
 * The project key when the request names it outside its body: `?token=` or `?api_key=`, as
 * PostHog's capture reads it from the query string (for GET requests; here for every method).
 * Known before anything is inflated, so an unknown key, or a project over its limits, is refused
 * without decompressing the body (issue 21: cheap refusals first). When present it is the
 * request's key: the body's own key, found only after inflating, does not override it.
 */
export function keyOutsideBody(query: Record<string, string | undefined>): string | undefined {
  return nonEmptyString(query.token)?.trim() || nonEmptyString(query.api_key)?.trim() || undefined;
}
