import type { PersonMappingRow, PersonMappingSink } from '../../store/analytics';
import type { ClickHouseConnection } from './connection';
import { PERSONS_TABLE } from './schema';
import { int, str } from './sql-literal';

/** Inserts every row as it comes: the newest version wins at read time (argMax), whatever the order. */
export function clickhousePersonMapping(client: ClickHouseConnection): PersonMappingSink {
  return {
    map: (rows: readonly PersonMappingRow[]) =>
      client.insert(
        PERSONS_TABLE,
        rows.map((r) => ({ project_id: r.projectId, distinct_id: r.distinctId, person_id: r.personId, version: r.version })),
      ),
  };
}

/**
 * Each distinct id of the project with its person now (`mapped_person`, Nullable so a LEFT JOIN
 * that finds none gives NULL rather than '').
 */
export function mappedPersons(projectId: number): string {
  return `(SELECT distinct_id, toNullable(argMax(person_id, version)) AS mapped_person
    FROM ${PERSONS_TABLE} WHERE project_id = ${int(projectId)} GROUP BY distinct_id)`;
}

/** Distinct ids the person holds now. */
export function distinctIdsOf(projectId: number, personId: string): string {
  return `(SELECT distinct_id FROM ${mappedPersons(projectId)} WHERE mapped_person = ${str(personId)})`;
}
