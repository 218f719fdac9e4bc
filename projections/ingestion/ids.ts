import { v5 as uuidv5 } from 'uuid';

/**
 * PostHog's own namespace for person UUIDs (plugin-server `person-uuid.ts`): using the same one makes
 * our person ids equal to the ones PostHog would mint for the same (project, distinct id), and makes
 * the personless id of a distinct id equal to the id its person gets if one is created later.
 */
export const PERSON_UUID_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

/** Deterministic person id: UUIDv5 of `"<projectId>:<distinctId>"`, exactly as PostHog derives it. */
export function personUuid(projectId: number, distinctId: string): string {
  return uuidv5(`${projectId}:${distinctId}`, PERSON_UUID_NAMESPACE);
}

// PostHog (person-merge-service.ts, isDistinctIdIllegal) rejects some ids whatever their casing and
// others only exactly as written (`NaN` is a bug marker, `nan` may be a real id), plus the single- and
// double-quoted forms of both lists, which buggy clients have been seen to send.
const BARE_CASE_INSENSITIVE = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
];
const BARE_CASE_SENSITIVE = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

const withQuotes = (ids: string[]) => [...ids, ...ids.map((id) => `'${id}'`), ...ids.map((id) => `"${id}"`)];
const CASE_INSENSITIVE = new Set(withQuotes(BARE_CASE_INSENSITIVE));
const CASE_SENSITIVE = new Set(withQuotes(BARE_CASE_SENSITIVE));

/** Ids that must never take part in a merge: they come from client bugs and would glue strangers together. */
export function isDistinctIdIllegal(id: string): boolean {
  return id.trim() === '' || CASE_INSENSITIVE.has(id.toLowerCase()) || CASE_SENSITIVE.has(id);
}
