/**
 * A standard page row as JSONCompact gives it, in run-query.ts's column order (64-bit integers as
 * strings): uuid, event, properties, distinct_id, project_id, timestamp, received_at, person_id,
 * elements_chain. recordFromRow's order too, once the project and the times are converted.
 */
export type StoredRow = [string, string, string, string, string | number, string | number, string | number, string | null, string];
