import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { SqlSession, SqlValue } from '../../src/store/sql';
import { groupKeyOf, isGroupIdentify } from './groups';
import { mergeSourceOf } from './merge';
import type { Properties } from './properties';

/** The name a group's records are kept under among distinct ids (a `$` id no SDK sends). */
export const groupRecordKey = (groupType: string, groupKey: string) => `$group:${groupType}:${groupKey}`;

/** The persons' ids one captured event names: its distinct id and the id it merges (if any). */
export function personIdsNamed(event: Pick<CapturedEventData, 'event' | 'distinct_id' | 'properties'>): string[] {
  const source = mergeSourceOf(event.event, (event.properties ?? {}) as Properties);
  return source === null ? [event.distinct_id] : [event.distinct_id, source];
}

/** The ids one captured event names: its distinct id, the id it merges, the group it identifies. */
export function namedIds(event: Pick<CapturedEventData, 'event' | 'distinct_id' | 'properties'>): string[] {
  const properties = (event.properties ?? {}) as Properties;
  const ids = personIdsNamed(event);
  if (isGroupIdentify(event.event)) {
    const type = properties.$group_type;
    const key = groupKeyOf(properties.$group_key);
    if (typeof type === 'string' && key !== null) ids.push(groupRecordKey(type, key));
  }
  return ids;
}

const ROWS_PER_STATEMENT = 200;

/**
 * Copies the record's events at `parts` (those that changed a person or group; a single
 * EventCaptured is part 0) under every id each names: what `as_of` of a person or group folds.
 */
export async function recordNamedEvents(db: SqlSession, projectId: number, recorded: RecordedEvent, parts: readonly number[]): Promise<void> {
  const events: readonly CapturedEventData[] =
    recorded.type === 'EventsCaptured' ? (recorded.data as EventsCapturedData).events : recorded.type === 'EventCaptured' ? [recorded.data as CapturedEventData] : [];
  const params: SqlValue[] = [];
  let rows = 0;
  const flush = async () => {
    if (rows === 0) return;
    await db.run(
      `INSERT INTO distinct_id_events (project_id, distinct_id, position, part, revision, recorded_at, event) VALUES ${'(?, ?, ?, ?, ?, ?, ?), '.repeat(rows).slice(0, -2)} ON CONFLICT DO NOTHING`,
      ...params,
    );
    params.length = 0;
    rows = 0;
  };
  for (const i of parts) {
    const event = events[i];
    if (!event) continue;
    const text = JSON.stringify(event);
    // An event naming one id twice (a merge of an id into itself) is copied once.
    for (const id of new Set(namedIds(event))) {
      params.push(projectId, id, recorded.position, i, recorded.revision, recorded.metadata.recordedAt, text);
      if (++rows === ROWS_PER_STATEMENT) await flush();
    }
  }
  await flush();
}
