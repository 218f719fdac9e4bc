import type { EventListFilters, ListedEvent, StoredEventColumns } from '../../store/analytics';
import { dedupedEvents } from './deduped-events';
import type { ClickHouseConnection } from './connection';
import { distinctIdsOf } from './person-mapping';
import { int, str } from './sql-literal';
import { fromMs, toMs } from './time';

/** A row as ClickHouse returns it: times as epoch milliseconds. */
type StoredEvent = Omit<StoredEventColumns, 'project_id' | 'timestamp' | 'received_at'> & { timestamp: string; received_at: string };

/**
 * The events API's list: newest first, (timestamp desc, uuid desc), with the embedded store's
 * filters (the person filter covers every distinct id the person holds now), offset or the
 * (before, beforeUuid) keyset cursor.
 */
export async function listEvents(client: ClickHouseConnection, projectId: number, filters: EventListFilters): Promise<ListedEvent[]> {
  const where: string[] = [];
  if (filters.event !== undefined) where.push(`event = ${str(filters.event)}`);
  if (filters.distinctId !== undefined) where.push(`distinct_id = ${str(filters.distinctId)}`);
  if (filters.personId !== undefined) where.push(`distinct_id IN ${distinctIdsOf(projectId, filters.personId)}`);
  if (filters.after !== undefined) where.push(`timestamp > ${int(toMs(filters.after))}`);
  if (filters.before !== undefined) {
    const before = int(toMs(filters.before));
    where.push(
      filters.beforeUuid !== undefined ? `timestamp <= ${before} AND (timestamp < ${before} OR uuid < ${str(filters.beforeUuid)})` : `timestamp < ${before}`,
    );
  }
  const rows = await client.rows<StoredEvent>(
    `SELECT uuid, event, distinct_id, person_id, properties, timestamp, received_at, elements_chain,
       group_0, group_1, group_2, group_3, group_4, historical_migration
     FROM ${dedupedEvents(projectId, where.length === 0 ? '1' : where.join(' AND '))}
     ORDER BY timestamp DESC, uuid DESC LIMIT ${int(filters.offset ?? 0)}, ${int(filters.limit)}`,
  );
  return rows.map(listed);
}

function listed({ properties, timestamp, received_at, historical_migration, ...r }: StoredEvent): ListedEvent {
  return {
    id: r.uuid,
    ...r,
    properties: JSON.parse(properties) as Record<string, unknown>,
    timestamp: fromMs(timestamp),
    received_at: fromMs(received_at),
    historical_migration: historical_migration === 1,
  };
}
