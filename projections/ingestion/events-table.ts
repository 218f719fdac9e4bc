import type { AnalyticsEventRow } from '../../src/store/analytics';
import type { SqlValue } from '../../src/store/read-model-projection';
import type { SqlSession } from '../../src/store/sql';
import { EVENTS, FLAG_EXPOSURES } from './schema';
import type { GroupColumns } from './groups';

/** A `$feature_flag_called` event's flag and variant (FLAG_EXPOSURES); only a string is a variant. */
export interface FlagExposure {
  flag: string;
  variant: string;
}

/**
 * The analytics sink's row (src/store/analytics.ts), with the fold's mutable group columns and the
 * event's exposure, read from the properties the fold has already parsed.
 */
export interface EventRow extends AnalyticsEventRow {
  groups: GroupColumns;
  exposure: FlagExposure | null;
}

/** The exposure an event records, if it is a `$feature_flag_called` with a string flag and variant. */
export function exposureOf(event: string, properties: Record<string, unknown>): FlagExposure | null {
  if (event !== '$feature_flag_called') return null;
  const { $feature_flag: flag, $feature_flag_response: variant } = properties;
  return typeof flag === 'string' && typeof variant === 'string' ? { flag, variant } : null;
}

const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Time columns are compared as text (range filters, created_at minimums), which is only correct when
 * every value has one shape: `toISOString()`'s. `2024-01-01T00:00:00Z` would otherwise sort after
 * `2024-01-01T00:00:00.500Z`. An unparseable value falls back to the given (log) time.
 */
export function canonicalIso(value: string, fallback: string): string {
  return toIso(value) ?? toIso(fallback) ?? fallback;
}

function toIso(value: string): string | null {
  if (CANONICAL_ISO.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * The two reads every event needs, in one statement: whether (project, uuid) was already folded (a
 * re-sent event must count once) and the distinct id's current person. EXISTS is a boolean in
 * PostgreSQL, which the adapter hands back as 1/0 like SQLite.
 */
const LOOKUP_BEFORE_FOLD = `SELECT EXISTS (SELECT 1 FROM events WHERE project_id = ? AND uuid = ?) AS duplicate,
  (SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?) AS person_id`;

export interface BeforeFold {
  /** 1 when (project, uuid) was folded already. */
  duplicate: number;
  person_id: string | null;
}

/** One statement, handed back unwrapped: the fold awaits it directly (no promise of its own per event). */
export function lookupBeforeFold(db: SqlSession, projectId: number, uuid: string, distinctId: string): Promise<BeforeFold | undefined> {
  return db.get<BeforeFold>(LOOKUP_BEFORE_FOLD, projectId, uuid, projectId, distinctId);
}

/** Rows in the order given, in one call: one statement where the engine gains by it (see insertRows); their exposures beside them. */
export async function insertEvents(db: SqlSession, rows: readonly EventRow[]): Promise<void> {
  await db.insertRows(EVENTS, rows.map(eventValues));
  const exposures = rows.flatMap((row) => (row.exposure ? [exposureValues(row, row.exposure)] : []));
  if (exposures.length > 0) await db.insertRows(FLAG_EXPOSURES, exposures);
}

/** A flag_exposures row's values (FLAG_EXPOSURES' column order). */
const exposureValues = (row: AnalyticsEventRow, e: FlagExposure): SqlValue[] => [row.projectId, e.flag, row.timestamp, row.uuid, row.distinctId, row.personId, e.variant];

/** The exposures of rows that come without the fold's parsed properties (the sink): their properties parsed for it. */
function parsedExposures(rows: readonly AnalyticsEventRow[]): SqlValue[][] {
  const out: SqlValue[][] = [];
  for (const row of rows) {
    if (row.event !== '$feature_flag_called') continue;
    const properties: unknown = JSON.parse(row.propertiesJson);
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) continue;
    const exposure = exposureOf(row.event, properties as Record<string, unknown>);
    if (exposure) out.push(exposureValues(row, exposure));
  }
  return out;
}

const COLUMNS = Object.keys(EVENTS.columns);
/** Rows per statement: 15 columns stay well under both engines' bound-parameter limits. */
const APPEND_CHUNK = 500;

/**
 * Rows whose (project, uuid) is not stored yet, in one statement per chunk; the others are left
 * as they are (the analytics sink's idempotence: a batch sent again shows each row once).
 */
export async function appendEventsOnce(db: SqlSession, rows: readonly AnalyticsEventRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += APPEND_CHUNK) {
    const chunk = rows.slice(i, i + APPEND_CHUNK);
    const tuple = `(${COLUMNS.map(() => '?').join(', ')})`;
    // The rows actually inserted: a row sent again keeps its first copy, and its exposure with it.
    const inserted = await db.all<{ uuid: string }>(
      `INSERT INTO events (${COLUMNS.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')} ON CONFLICT (project_id, uuid) DO NOTHING RETURNING uuid`,
      ...chunk.flatMap(eventValues),
    );
    // A uuid twice in one chunk: the first copy is the one stored.
    const fresh = new Set(inserted.map((r) => r.uuid));
    const exposures = parsedExposures(chunk.filter((row) => fresh.delete(row.uuid)));
    if (exposures.length === 0) continue;
    await db.insertRows(FLAG_EXPOSURES, exposures);
  }
}

/** A row's values in the order of the events table's columns. */
function eventValues(row: AnalyticsEventRow): SqlValue[] {
  const [g0, g1, g2, g3, g4] = row.groups;
  return [
    row.uuid,
    row.projectId,
    row.event,
    row.distinctId,
    row.personId,
    row.timestamp,
    row.receivedAt,
    row.propertiesJson,
    row.elementsChain,
    g0,
    g1,
    g2,
    g3,
    g4,
    row.historicalMigration ? 1 : 0,
  ];
}
