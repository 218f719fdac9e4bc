import { QUARANTINE_TABLE } from '../../src/store/read-model-projection';
import type { SqlSession } from '../../src/store/sql';
import { GROUP, GROUP_TYPE_MAPPINGS, HASH_KEY_OVERRIDE_FOR, PERSON_PROPERTIES_BY_DISTINCT_ID } from './read-statements';
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
export function ingestionQueries(db: SqlSession) {
  const { dialect } = db;
  const DISTINCT_IDS = `(SELECT ${dialect.jsonArrayAgg('distinct_id', 'seq_position, seq_index')} FROM person_distinct_ids
    WHERE person_id = p.uuid) AS distinct_ids`;
  const PERSON = `p.uuid, p.properties, p.created_at, p.is_identified, p.version, ${DISTINCT_IDS}`;
  return {
    /** Newest person first; with `distinctId`, the one person holding it (or none). */
    async persons(projectId: number, options: PageOptions & { distinctId?: string }): Promise<Page<PersonApi>> {
      const offset = options.offset ?? 0;
      if (options.distinctId !== undefined) {
        const row = await db.get<PersonRow>(
          `SELECT ${PERSON} FROM person_distinct_ids d JOIN persons p ON p.uuid = d.person_id
           WHERE d.project_id = ? AND d.distinct_id = ?`,
          projectId,
          options.distinctId,
        );
        return { count: row ? 1 : 0, results: row && offset === 0 && options.limit > 0 ? [personApi(row)] : [] };
      }
      const { n: count } = (await db.get<{ n: number }>('SELECT count(*) AS n FROM persons WHERE project_id = ?', projectId))!;
      const rows = await db.all<PersonRow>(
        `SELECT ${PERSON} FROM persons p WHERE p.project_id = ? ORDER BY p.seq_position DESC, p.seq_index DESC LIMIT ? OFFSET ?`,
        projectId,
        options.limit,
        offset,
      );
      return { count, results: rows.map(personApi) };
    },

    async person(projectId: number, uuid: string): Promise<PersonApi | undefined> {
      const row = await db.get<PersonRow>(`SELECT ${PERSON} FROM persons p WHERE p.project_id = ? AND p.uuid = ?`, projectId, uuid);
      return row ? personApi(row) : undefined;
    },

    /** A distinct id's person as one record (no distinct id list): one statement over two unique indexes. */
    async personByDistinctId(projectId: number, distinctId: string): Promise<PersonRecord | undefined> {
      const r = await db.get<PersonRow>(
        `SELECT p.uuid, p.properties, p.created_at, p.is_identified, p.version
         FROM person_distinct_ids d JOIN persons p ON p.uuid = d.person_id
         WHERE d.project_id = ? AND d.distinct_id = ?`,
        projectId,
        distinctId,
      );
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
    async personPropertiesByDistinctId(projectId: number, distinctId: string): Promise<Properties | null> {
      const row = await db.get<{ properties: string }>(PERSON_PROPERTIES_BY_DISTINCT_ID, projectId, distinctId);
      return row === undefined ? null : (JSON.parse(row.properties) as Properties);
    },

    /** The person a distinct id belongs to now, through every merge. */
    async personIdOf(projectId: number, distinctId: string): Promise<string | null> {
      const row = await db.get<{ person_id: string }>(
        'SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?',
        projectId,
        distinctId,
      );
      return row?.person_id ?? null;
    },

    /** The anonymous id a person's flags keep bucketing on after identifying, if any. */
    async hashKeyOverrideFor(projectId: number, distinctId: string): Promise<string | null> {
      const row = await db.get<{ hash_key: string }>(HASH_KEY_OVERRIDE_FOR, projectId, distinctId);
      return row?.hash_key ?? null;
    },

    /** Newest group first, optionally of one type and/or one key. */
    async groups(projectId: number, options: PageOptions & { groupTypeIndex?: number; groupKey?: string }): Promise<Page<GroupApi>> {
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
      const { n: count } = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM groups WHERE ${clause}`, ...params))!;
      const rows = await db.all<GroupRow>(
        `SELECT group_type_index, group_key, group_properties, created_at FROM groups WHERE ${clause}
         ORDER BY created_at DESC, group_type_index, group_key LIMIT ? OFFSET ?`,
        ...params,
        options.limit,
        options.offset ?? 0,
      );
      return { count, results: rows.map(groupApi) };
    },

    async group(projectId: number, groupTypeIndex: number, groupKey: string): Promise<GroupApi | undefined> {
      const row = await db.get<GroupRow>(GROUP, projectId, groupTypeIndex, groupKey);
      return row ? groupApi(row) : undefined;
    },

    async groupTypeMappings(projectId: number): Promise<GroupTypeMapping[]> {
      return db.all<GroupTypeMapping>(GROUP_TYPE_MAPPINGS, projectId);
    },

    /** Newest first. Uncounted on purpose: the table is large; the API pages by a (timestamp, uuid) cursor. */
    async events(projectId: number, filters: EventFilters): Promise<EventApi[]> {
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
      if (filters.before !== undefined && filters.beforeUuid !== undefined) {
        // The range on time first, so both engines still walk the time index from the cursor on.
        const before = canonicalIso(filters.before, filters.before);
        where.push('timestamp <= ? AND (timestamp < ? OR uuid < ?)');
        params.push(before, before, filters.beforeUuid);
      } else if (filters.before !== undefined) {
        where.push('timestamp < ?');
        params.push(canonicalIso(filters.before, filters.before));
      }
      // Without statistics SQLite prefers the time index (it saves the sort) and would scan the whole
      // project; a distinct id or person filter is always the more selective one.
      const byDistinctId = filters.distinctId !== undefined || filters.personId !== undefined;
      const rows = await db.all<EventDbRow>(
        `SELECT uuid, event, distinct_id, person_id, properties, timestamp, received_at, elements_chain,
           group_0, group_1, group_2, group_3, group_4, historical_migration
         FROM ${byDistinctId ? dialect.indexedBy('events', 'events_by_distinct_id') : 'events'}
         WHERE ${where.join(' AND ')} ORDER BY timestamp DESC, uuid DESC LIMIT ? OFFSET ?`,
        ...params,
        filters.limit,
        filters.offset ?? 0,
      );
      return rows.map(eventApi);
    },

    /**
     * Newest first (log order), with the project's events that another projection quarantined (the
     * ingestion fold raises its own) merged in by time.
     */
    async ingestionWarnings(projectId: number, options: PageOptions): Promise<IngestionWarningApi[]> {
      const offset = options.offset ?? 0;
      const own = async (limit: number, skip: number) =>
        (
          await db.all<WarningRow>(
            `SELECT type, source, details, timestamp FROM ingestion_warnings WHERE project_id = ?
             ORDER BY position DESC, seq DESC LIMIT ? OFFSET ?`,
            projectId,
            limit,
            skip,
          )
        ).map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
      const others = await quarantinedElsewhere(db, projectId, offset + options.limit);
      if (others.length === 0) return own(options.limit, offset);
      return mergeNewestFirst(await own(offset + options.limit, 0), others).slice(offset, offset + options.limit);
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

/**
 * Quarantines of the project's events by projections other than this one, newest first (a whole
 * record's, with a null part, after its parts: as SQLite orders nulls, which PostgreSQL would not).
 */
async function quarantinedElsewhere(db: SqlSession, projectId: number, limit: number): Promise<IngestionWarningApi[]> {
  // The runner creates the table when it binds: a store read before that has none.
  if (!(await db.get(db.dialect.tableExists, QUARANTINE_TABLE))) return [];
  const rows = await db.all<QuarantineRow>(
    `SELECT projection, position, part, stream_id, event_type, recorded_at, error FROM ${QUARANTINE_TABLE}
     WHERE project_id = ? AND projection <> ? ORDER BY position DESC, coalesce(part, -1) DESC LIMIT ?`,
    projectId,
    INGESTION,
    limit,
  );
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
