/**
 * The columns every file export carries, in order (compat/posthog.md §5 "Exported fields").
 * `ip` and `site_url` are not part of file exports; only the Postgres table has them.
 */
export const EXPORTED_FIELDS = [
  'uuid',
  'event',
  'properties',
  'distinct_id',
  'team_id',
  'timestamp',
  'created_at',
  'person_id',
  'person_properties',
  'set',
  'set_once',
  'elements_chain',
] as const;

export type ExportedField = (typeof EXPORTED_FIELDS)[number];

/** Fields holding JSON objects: nested objects in JSONLines, JSON text in Parquet. */
export const JSON_FIELDS = ['properties', 'person_properties', 'set', 'set_once'] as const;
