import type { EventListFilters, ListedEvent, StoredEventColumns } from '../../store/analytics';
import { dedupedEvents } from './deduped-events';
import type { ClickHouseConnection } from './connection';
import { newestHoursStart } from './newest-hours';
import { distinctIdsOf } from './person-mapping';
import { EVENTS_BY_TIME_TABLE, EVENTS_TABLE, type EventRowTable } from './schema';
import { int, str } from './sql-literal';
import { fromMs, toMs } from './time';

/** A row as ClickHouse returns it: times as epoch milliseconds. */
type StoredEvent = Omit<StoredEventColumns, 'project_id' | 'timestamp' | 'received_at'> & { timestamp: string; received_at: string };

/**
 * The events API's list: newest first, (timestamp desc, uuid desc), with the embedded store's
 * filters (the person filter covers every distinct id the person holds now), offset or the
 * (before, beforeUuid) keyset cursor.
 *
 * 18.16 reads every row a condition's key range holds before sorting, so a page with no lower time
 * bound reads the whole project before its cursor. Without an event or person filter the page is
 * read from events_by_time (ordered by time) from where event_hours says its rows start; filtered
 * pages read events as before (its key leads with the event name).
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
  const page = (table: EventRowTable, conditions: string[]) => readPage(client, projectId, table, conditions, filters);
  if (filters.event !== undefined || filters.distinctId !== undefined || filters.personId !== undefined) return page(EVENTS_TABLE, where);
  const start = await newestHoursStart(client, projectId, filters.before === undefined ? null : toMs(filters.before), (filters.offset ?? 0) + filters.limit);
  if (start !== null && (filters.after === undefined || start > toMs(filters.after))) {
    const rows = await page(EVENTS_BY_TIME_TABLE, [...where, `timestamp >= ${int(start)}`]);
    if (rows.length === filters.limit) return rows;
  }
  return page(EVENTS_BY_TIME_TABLE, where);
}

async function readPage(client: ClickHouseConnection, projectId: number, table: EventRowTable, where: string[], filters: EventListFilters): Promise<ListedEvent[]> {
  const rows = await client.rows<StoredEvent>(
    `SELECT uuid, event, distinct_id, person_id, properties, timestamp, received_at, elements_chain,
       group_0, group_1, group_2, group_3, group_4, historical_migration
     FROM ${dedupedEvents(projectId, where.length === 0 ? '1' : where.join(' AND '), table)}
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
