import { mappedPersons } from './person-mapping';
import { EVENTS_TABLE, type EventRowTable } from './schema';
import { int } from './sql-literal';

/**
 * The project's events matching `where` (a condition on the stored columns), each (project, uuid)
 * once. The only duplicates the tables can hold are identical copies (sink.ts), which share the
 * sorting key, so FINAL collapses them whether or not the background merge has run. Used as a
 * FROM source; its columns are the table's. `table`: the one whose sorting key `where` narrows.
 */
export function dedupedEvents(projectId: number, where: string, table: EventRowTable = EVENTS_TABLE): string {
  return `(SELECT * FROM ${table} FINAL WHERE project_id = ${int(projectId)} AND ${where})`;
}

/**
 * `dedupedEvents` with each row's person now: `person` (the mapped one, else the stored one). The
 * joined subqueries carry aliases: current ClickHouse requires them (joined_subquery_requires_alias).
 */
export function eventsWithPersons(projectId: number, where: string, columns: string): string {
  return `(SELECT ${columns}, coalesce(mapped_person, person_id) AS person
    FROM ${dedupedEvents(projectId, where)} AS stored ANY LEFT JOIN ${mappedPersons(projectId)} AS mapped USING distinct_id)`;
}
