import { mappedPersons } from './person-mapping';
import { EVENTS_TABLE } from './schema';
import { int } from './sql-literal';

/**
 * The project's events matching `where` (a condition on the stored columns), each (project, uuid)
 * once: its first stored copy (largest `_keep`). The copies are gathered by uuid whatever their
 * other columns, and `where` is checked again on the chosen copy, so a later copy that differs
 * (another name or time) neither shows up nor hides the first. Used as a FROM source; its columns
 * are the table's.
 */
export function dedupedEvents(projectId: number, where: string): string {
  const project = `project_id = ${int(projectId)}`;
  return `(SELECT * FROM (
      SELECT * FROM ${EVENTS_TABLE}
      WHERE ${project} AND uuid IN (SELECT uuid FROM ${EVENTS_TABLE} WHERE ${project} AND ${where})
      ORDER BY _keep DESC LIMIT 1 BY uuid)
    WHERE ${where})`;
}

/** `dedupedEvents` with each row's person now: `person` (the mapped one, else the stored one). */
export function eventsWithPersons(projectId: number, where: string, columns: string): string {
  return `(SELECT ${columns}, coalesce(mapped_person, person_id) AS person
    FROM ${dedupedEvents(projectId, where)} ANY LEFT JOIN ${mappedPersons(projectId)} USING distinct_id)`;
}
