import type { AnalyticsDigest, StoredEventColumns } from '../../store/analytics';
import { digestRows, SetDigest } from '../../runtime/set-digest';
import type { ClickHouseConnection } from './connection';
import { EVENT_ROW_TABLES, PERSONS_TABLE } from './schema';
import { int, str } from './sql-literal';
import { fromMs } from './time';

/** Rows per read: the digest pages through the table instead of holding it. */
const PAGE = 20_000;

/** ClickHouse answers 64-bit integers (the project, the times in ms) as text or number. */
type Stored = Omit<StoredEventColumns, 'project_id' | 'timestamp' | 'received_at'> & {
  project_id: string | number;
  timestamp: string | number;
  received_at: string | number;
};

/**
 * The store's digest as its reads see it: events FINAL (an identical copy left by a crash counts
 * once), paged by (project_id, uuid); each distinct id's newest mapping (argMax on version). The
 * events are digested in each table holding them (events and its copies, schema.ts); when the
 * copies disagree the events digest names each table's, so it equals no read models' digest.
 */
export async function clickhouseDigest(client: ClickHouseConnection): Promise<AnalyticsDigest> {
  const perTable: string[] = [];
  for (const table of EVENT_ROW_TABLES) perTable.push(await eventsDigest(client, table));
  const events = perTable.every((d) => d === perTable[0]) ? perTable[0] : EVENT_ROW_TABLES.map((t, i) => `${t}:${perTable[i]}`).join(' ');
  const persons = new SetDigest();
  const mapped = await client.rows<{ project_id: string | number; distinct_id: string; person_id: string }>(
    `SELECT project_id, distinct_id, argMax(person_id, version) AS person_id FROM ${PERSONS_TABLE} GROUP BY project_id, distinct_id`,
  );
  for (const r of mapped) persons.add(digestRows.person(Number(r.project_id), r.distinct_id, r.person_id));
  return { events, persons: persons.value() };
}

async function eventsDigest(client: ClickHouseConnection, table: string): Promise<string> {
  const events = new SetDigest();
  let after: { project: number; uuid: string } | null = null;
  for (;;) {
    const from: string = after === null ? '1' : `(project_id > ${int(after.project)} OR (project_id = ${int(after.project)} AND uuid > ${str(after.uuid)}))`;
    const rows = await client.rows<Stored>(
      `SELECT project_id, uuid, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, group_0, group_1, group_2, group_3, group_4, historical_migration
       FROM ${table} FINAL WHERE ${from} ORDER BY project_id, uuid LIMIT ${PAGE}`,
    );
    for (const r of rows)
      events.add(
        digestRows.event({
          projectId: Number(r.project_id),
          uuid: r.uuid,
          event: r.event,
          distinctId: r.distinct_id,
          personId: r.person_id,
          timestamp: fromMs(r.timestamp),
          receivedAt: fromMs(r.received_at),
          properties: r.properties,
          elementsChain: r.elements_chain,
          groups: [r.group_0, r.group_1, r.group_2, r.group_3, r.group_4],
          historicalMigration: Number(r.historical_migration) === 1,
        }),
      );
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1];
    after = { project: Number(last.project_id), uuid: last.uuid };
  }
  return events.value();
}
