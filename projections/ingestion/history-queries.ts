import type { SqlSession } from '../../src/store/sql';
import type { GroupTypeMapping } from './api-types';

/** A point of the log, as `distinct_id_events` can bound it: a position, or a moment (ISO, UTC). */
export type RecordBound = { position: number } | { at: string };

/** A captured event naming an id, where the log holds it. */
export interface NamingEvent {
  /** Its record's position, and that record's revision in the project's ingest stream. */
  position: number;
  revision: number;
  /** Its index in the record (0 for an EventCaptured record). */
  part: number;
  /** The record's recorded time (ISO, UTC). */
  recorded_at: string;
  /** The event, as JSON text. */
  event: string;
}

/** Longest chain of merges followed (a person merged into one merged into another ...). */
const MAX_CHAIN = 10_000;

/** What persons' and groups' `as_of` reads of the ingestion read side (see DISTINCT_ID_EVENTS). */
export function ingestionHistoryQueries(db: SqlSession) {
  return {
    /** The live person `personId` ended in through merges (itself when never merged), or null when it never existed. */
    async survivorOf(projectId: number, personId: string): Promise<string | null> {
      let at = personId;
      for (let step = 0; step < MAX_CHAIN; step++) {
        const merged = await db.get<{ into_id: string }>('SELECT into_id FROM person_merges WHERE project_id = ? AND from_id = ?', projectId, at);
        if (!merged) break;
        at = merged.into_id;
      }
      const live = await db.get<{ uuid: string }>('SELECT uuid FROM persons WHERE project_id = ? AND uuid = ?', projectId, at);
      return live ? at : null;
    },

    /** Every distinct id a live person holds (those of every person merged into it included). */
    async distinctIdsOf(projectId: number, personId: string): Promise<string[]> {
      return (await db.all<{ distinct_id: string }>('SELECT distinct_id FROM person_distinct_ids WHERE project_id = ? AND person_id = ?', projectId, personId)).map(
        (r) => r.distinct_id,
      );
    },

    /** The captured events naming any of `ids` up to the bound, in log order, each once. */
    async eventsNaming(projectId: number, ids: readonly string[], bound: RecordBound): Promise<NamingEvent[]> {
      if (ids.length === 0) return [];
      const within = 'position' in bound ? 'position <= ?' : 'recorded_at <= ?';
      const rows = await db.all<NamingEvent>(
        `SELECT position, revision, part, recorded_at, event FROM distinct_id_events
         WHERE project_id = ? AND ${db.dialect.inJsonArray('distinct_id', 'text')} AND ${within} ORDER BY position, part`,
        projectId,
        JSON.stringify(ids),
        'position' in bound ? bound.position : bound.at,
      );
      // An event naming two of the ids (a merge of one into the other) is listed under each.
      return rows.filter((r, i) => i === 0 || r.position !== rows[i - 1].position || r.part !== rows[i - 1].part);
    },

    async groupTypeMappings(projectId: number): Promise<GroupTypeMapping[]> {
      return db.all<GroupTypeMapping>('SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ? ORDER BY group_type_index', projectId);
    },
  };
}
