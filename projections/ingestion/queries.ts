import { QUARANTINE_TABLE, type SqlStore } from '../projection';
import { INGESTION, QUARANTINE_WARNING } from './names';
import { canonicalIso } from './events-table';
import type {
  EventApi,
  EventFilters,
  GroupApi,
  GroupTypeMapping,
  IngestionWarningApi,
  Page,
  PageOptions,
  PersonApi,
  PersonRecord,
} from './api-types';
import type { Properties } from './properties';

interface PersonRow {
  uuid: string;
  properties: string;
  created_at: string;
  is_identified: number;
  version: number;
  distinct_ids?: string;
}
interface GroupRow {
  group_type_index: number;
  group_key: string;
  group_properties: string;
  created_at: string;
}
interface EventDbRow extends Omit<EventApi, 'id' | 'properties' | 'historical_migration'> {
  properties: string;
  historical_migration: number;
}
interface WarningRow extends Omit<IngestionWarningApi, 'details'> {
  details: string;
}

const DISTINCT_IDS = `(SELECT json_group_array(distinct_id) FROM
  (SELECT distinct_id FROM person_distinct_ids WHERE person_id = p.uuid ORDER BY seq)) AS distinct_ids`;

const personApi = (r: PersonRow): PersonApi => ({
  id: r.uuid,
  uuid: r.uuid,
  distinct_ids: JSON.parse(r.distinct_ids ?? '[]') as string[],
  properties: JSON.parse(r.properties) as Properties,
  created_at: r.created_at,
  is_identified: r.is_identified === 1,
});

const groupApi = (r: GroupRow): GroupApi => ({
  group_type_index: r.group_type_index,
  group_key: r.group_key,
  group_properties: JSON.parse(r.group_properties) as Properties,
  created_at: r.created_at,
});

const eventApi = ({ properties, historical_migration, ...r }: EventDbRow): EventApi => ({
  id: r.uuid,
  ...r,
  properties: JSON.parse(properties) as Properties,
  historical_migration: historical_migration === 1,
});

/** Read side of the ingestion projection: persons, groups, analytics events and warnings. */
export function ingestionQueries(db: SqlStore) {
  return {
    /** Newest person first; with `distinctId`, the one person holding it (or none). */
    persons(projectId: number, options: PageOptions & { distinctId?: string }): Page<PersonApi> {
      const offset = options.offset ?? 0;
      if (options.distinctId !== undefined) {
        const row = db
          .prepare(
            `SELECT p.*, ${DISTINCT_IDS} FROM person_distinct_ids d JOIN persons p ON p.uuid = d.person_id
             WHERE d.project_id = ? AND d.distinct_id = ?`,
          )
          .get(projectId, options.distinctId) as PersonRow | undefined;
        return { count: row ? 1 : 0, results: row && offset === 0 && options.limit > 0 ? [personApi(row)] : [] };
      }
      const count = (db.prepare('SELECT count(*) AS n FROM persons WHERE project_id = ?').get(projectId) as { n: number }).n;
      const rows = db
        .prepare(`SELECT p.*, ${DISTINCT_IDS} FROM persons p WHERE p.project_id = ? ORDER BY p.rowid DESC LIMIT ? OFFSET ?`)
        .all(projectId, options.limit, offset) as PersonRow[];
      return { count, results: rows.map(personApi) };
    },

    person(projectId: number, uuid: string): PersonApi | undefined {
      const row = db
        .prepare(`SELECT p.*, ${DISTINCT_IDS} FROM persons p WHERE p.project_id = ? AND p.uuid = ?`)
        .get(projectId, uuid) as PersonRow | undefined;
      return row ? personApi(row) : undefined;
    },

    /** The flags hot path: one statement over two unique indexes. */
    personByDistinctId(projectId: number, distinctId: string): PersonRecord | undefined {
      const r = db
        .prepare(
          `SELECT p.uuid, p.properties, p.created_at, p.is_identified, p.version
           FROM person_distinct_ids d JOIN persons p ON p.uuid = d.person_id
           WHERE d.project_id = ? AND d.distinct_id = ?`,
        )
        .get(projectId, distinctId) as PersonRow | undefined;
      if (!r) return undefined;
      return {
        id: r.uuid,
        uuid: r.uuid,
        properties: JSON.parse(r.properties) as Properties,
        created_at: r.created_at,
        is_identified: r.is_identified === 1,
        version: r.version,
      };
    },

    /** Only the properties of a distinct id's person (flag evaluation's read: one column, no record). */
    personPropertiesByDistinctId(projectId: number, distinctId: string): Properties | null {
      const row = db
        .prepare(
          `SELECT p.properties FROM person_distinct_ids d JOIN persons p ON p.uuid = d.person_id
           WHERE d.project_id = ? AND d.distinct_id = ?`,
        )
        .get(projectId, distinctId) as { properties: string } | undefined;
      return row === undefined ? null : (JSON.parse(row.properties) as Properties);
    },

    /** The person a distinct id belongs to now, through every merge. */
    personIdOf(projectId: number, distinctId: string): string | null {
      const row = db
        .prepare('SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?')
        .get(projectId, distinctId) as { person_id: string } | undefined;
      return row?.person_id ?? null;
    },

    /** The anonymous id a person's flags keep bucketing on after identifying, if any. */
    hashKeyOverrideFor(projectId: number, distinctId: string): string | null {
      const row = db
        .prepare(
          `SELECT h.hash_key FROM person_distinct_ids d
           JOIN person_hash_key_overrides h ON h.project_id = d.project_id AND h.person_id = d.person_id
           WHERE d.project_id = ? AND d.distinct_id = ?`,
        )
        .get(projectId, distinctId) as { hash_key: string } | undefined;
      return row?.hash_key ?? null;
    },

    /** Newest group first, optionally of one type and/or one key. */
    groups(projectId: number, options: PageOptions & { groupTypeIndex?: number; groupKey?: string }): Page<GroupApi> {
      const where = ['project_id = ?'];
      const params: (string | number)[] = [projectId];
      if (options.groupTypeIndex !== undefined) {
        where.push('group_type_index = ?');
        params.push(options.groupTypeIndex);
      }
      if (options.groupKey !== undefined) {
        where.push('group_key = ?');
        params.push(options.groupKey);
      }
      const clause = where.join(' AND ');
      const count = (db.prepare(`SELECT count(*) AS n FROM groups WHERE ${clause}`).get(...params) as { n: number }).n;
      const rows = db
        .prepare(
          `SELECT group_type_index, group_key, group_properties, created_at FROM groups WHERE ${clause}
           ORDER BY created_at DESC, group_type_index, group_key LIMIT ? OFFSET ?`,
        )
        .all(...params, options.limit, options.offset ?? 0) as GroupRow[];
      return { count, results: rows.map(groupApi) };
    },

    group(projectId: number, groupTypeIndex: number, groupKey: string): GroupApi | undefined {
      const row = db
        .prepare(
          `SELECT group_type_index, group_key, group_properties, created_at FROM groups
           WHERE project_id = ? AND group_type_index = ? AND group_key = ?`,
        )
        .get(projectId, groupTypeIndex, groupKey) as GroupRow | undefined;
      return row ? groupApi(row) : undefined;
    },

    groupTypeMappings(projectId: number): GroupTypeMapping[] {
      return db
        .prepare(
          'SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ? ORDER BY group_type_index',
        )
        .all(projectId) as GroupTypeMapping[];
    },

    /** Newest first. Uncounted on purpose: the table is large and the API pages by offset. */
    events(projectId: number, filters: EventFilters): EventApi[] {
      const where = ['project_id = ?'];
      const params: (string | number)[] = [projectId];
      if (filters.event !== undefined) {
        where.push('event = ?');
        params.push(filters.event);
      }
      if (filters.distinctId !== undefined) {
        where.push('distinct_id = ?');
        params.push(filters.distinctId);
      }
      if (filters.personId !== undefined) {
        where.push('distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE project_id = ? AND person_id = ?)');
        params.push(projectId, filters.personId);
      }
      if (filters.after !== undefined) {
        where.push('timestamp > ?');
        params.push(canonicalIso(filters.after, filters.after));
      }
      if (filters.before !== undefined) {
        where.push('timestamp < ?');
        params.push(canonicalIso(filters.before, filters.before));
      }
      // Without statistics SQLite prefers the time index (it saves the sort) and would scan the whole
      // project; a distinct id or person filter is always the more selective one.
      const byDistinctId = filters.distinctId !== undefined || filters.personId !== undefined;
      const rows = db
        .prepare(
          `SELECT uuid, event, distinct_id, person_id, properties, timestamp, received_at, elements_chain,
             group_0, group_1, group_2, group_3, group_4, historical_migration
           FROM events ${byDistinctId ? 'INDEXED BY events_by_distinct_id' : ''}
           WHERE ${where.join(' AND ')} ORDER BY timestamp DESC, uuid DESC LIMIT ? OFFSET ?`,
        )
        .all(...params, filters.limit, filters.offset ?? 0) as EventDbRow[];
      return rows.map(eventApi);
    },

    /**
     * Newest first (log order), with the project's events that another projection quarantined (the
     * ingestion fold raises its own) merged in by time.
     */
    ingestionWarnings(projectId: number, options: PageOptions): IngestionWarningApi[] {
      const offset = options.offset ?? 0;
      const own = (limit: number, skip: number) =>
        (
          db
            .prepare(
              `SELECT type, source, details, timestamp FROM ingestion_warnings WHERE project_id = ?
               ORDER BY id DESC LIMIT ? OFFSET ?`,
            )
            .all(projectId, limit, skip) as WarningRow[]
        ).map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
      const others = quarantinedElsewhere(db, projectId, offset + options.limit);
      if (others.length === 0) return own(options.limit, offset);
      return mergeNewestFirst(own(offset + options.limit, 0), others).slice(offset, offset + options.limit);
    },
  };
}

export type IngestionQueries = ReturnType<typeof ingestionQueries>;

interface QuarantineRow {
  projection: string;
  position: number;
  part: number | null;
  stream_id: string;
  event_type: string;
  recorded_at: string;
  error: string;
}

/** Quarantines of the project's events by projections other than this one, newest first. */
function quarantinedElsewhere(db: SqlStore, projectId: number, limit: number): IngestionWarningApi[] {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(QUARANTINE_TABLE);
  if (!table) return [];
  const rows = db
    .prepare(
      `SELECT projection, position, part, stream_id, event_type, recorded_at, error FROM ${QUARANTINE_TABLE}
       WHERE project_id = ? AND projection <> ? ORDER BY position DESC, part DESC LIMIT ?`,
    )
    .all(projectId, INGESTION, limit) as QuarantineRow[];
  return rows.map((r) => ({
    type: QUARANTINE_WARNING,
    source: r.projection,
    details: { position: r.position, index: r.part, stream: r.stream_id, eventType: r.event_type, error: r.error },
    timestamp: r.recorded_at,
  }));
}

/** Two newest-first lists merged by timestamp; on a tie the first list's row comes first. */
function mergeNewestFirst(a: IngestionWarningApi[], b: IngestionWarningApi[]): IngestionWarningApi[] {
  const out: IngestionWarningApi[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i].timestamp >= b[j].timestamp)) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
