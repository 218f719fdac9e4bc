import type { CapturedEventData, EventsCapturedData, RecordedEvent } from '../../streams';
import type { SqlSession } from '../../src/store/sql';
import { groupKeyOf, isGroupIdentify } from './groups';
import { mergeSourceOf } from './merge';
import type { Properties } from './properties';

/** The name a group's records are kept under among distinct ids (a `$` id no SDK sends). */
export const groupRecordKey = (groupType: string, groupKey: string) => `$group:${groupType}:${groupKey}`;

/** The ids one captured event names: its distinct id, the id it merges, the group it identifies. */
export function namedIds(event: Pick<CapturedEventData, 'event' | 'distinct_id' | 'properties'>): string[] {
  const properties = (event.properties ?? {}) as Properties;
  const ids = [event.distinct_id];
  const source = mergeSourceOf(event.event, properties);
  if (source !== null) ids.push(source);
  if (isGroupIdentify(event.event)) {
    const type = properties.$group_type;
    const key = groupKeyOf(properties.$group_key);
    if (typeof type === 'string' && key !== null) ids.push(groupRecordKey(type, key));
  }
  return ids;
}

const ROWS_PER_STATEMENT = 200;

/**
 * Notes that this record names these ids (once per id and record, whatever its events): what
 * `as_of` of a person or group reads to find its records. `parts`: only these events (a part
 * applied on its own).
 */
export async function recordNamedIds(db: SqlSession, projectId: number, recorded: RecordedEvent, parts?: readonly number[]): Promise<void> {
  const events: readonly CapturedEventData[] =
    recorded.type === 'EventsCaptured' ? (recorded.data as EventsCapturedData).events : recorded.type === 'EventCaptured' ? [recorded.data as CapturedEventData] : [];
  const ids = new Set<string>();
  for (const i of parts ?? events.keys()) if (events[i]) for (const id of namedIds(events[i])) ids.add(id);
  const all = [...ids];
  for (let start = 0; start < all.length; start += ROWS_PER_STATEMENT) {
    const chunk = all.slice(start, start + ROWS_PER_STATEMENT);
    const params = chunk.flatMap((id) => [projectId, id, recorded.position, recorded.revision, recorded.metadata.recordedAt]);
    await db.run(
      `INSERT INTO distinct_id_records (project_id, distinct_id, position, revision, recorded_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
      ...params,
    );
  }
}
