import type { AnalyticsDigest } from '../../src/store/analytics';
import type { SqlSession } from '../../src/store/sql';
import { digestRows, SetDigest } from '../../src/runtime/set-digest';

/**
 * The embedded store's analytics digest (AnalyticsDigest): the read models' events and
 * person_distinct_ids, encoded as every engine's digest encodes them, so a ClickHouse store fed
 * from these read models digests alike.
 */
export async function embeddedAnalyticsDigest(db: SqlSession): Promise<AnalyticsDigest> {
  const events = new SetDigest();
  for await (const [uuid, projectId, event, distinctId, personId, timestamp, receivedAt, properties, elementsChain, g0, g1, g2, g3, g4, historical] of db.stream(
    `SELECT uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, group_0, group_1, group_2, group_3, group_4, historical_migration FROM events`,
  ))
    events.add(
      digestRows.event({
        projectId: Number(projectId),
        uuid: String(uuid),
        event: String(event),
        distinctId: String(distinctId),
        personId: personId === null ? null : String(personId),
        timestamp: String(timestamp),
        receivedAt: String(receivedAt),
        properties: String(properties),
        elementsChain: String(elementsChain),
        groups: [g0, g1, g2, g3, g4].map((g) => (g === null ? null : String(g))),
        historicalMigration: Number(historical) === 1,
      }),
    );
  const persons = new SetDigest();
  for await (const [projectId, distinctId, personId] of db.stream('SELECT project_id, distinct_id, person_id FROM person_distinct_ids'))
    persons.add(digestRows.person(Number(projectId), String(distinctId), String(personId)));
  return { events: events.value(), persons: persons.value() };
}
