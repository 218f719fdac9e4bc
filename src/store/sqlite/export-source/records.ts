import type { ExportRecord, RawJsonFields } from '../../../exports/destinations';
import type { CompiledColumn } from '../../../exports/hogql';

type Json = Record<string, unknown>;

const parseObject = (text: string | null): Json | null => (text === null ? null : (JSON.parse(text) as Json));

/**
 * One analytics row as an export record. The JSON columns stay text: writers that only
 * re-serialise (JSONLines, Parquet, Postgres) splice `raw` in as is, and the objects are parsed
 * on first access, for the destinations that look inside (HTTP).
 */
class StoredRecord implements ExportRecord {
  // Parsed on first access; plain fields (not a cache object) to keep one allocation per row.
  private parsedProperties: Json | undefined = undefined;
  private parsedPerson: Json | null | undefined = undefined;
  private parsedSet: Json | null | undefined = undefined;
  private parsedSetOnce: Json | null | undefined = undefined;

  constructor(
    readonly uuid: string,
    readonly event: string,
    readonly distinct_id: string,
    readonly team_id: number,
    readonly timestamp: string,
    readonly created_at: string,
    readonly person_id: string | null,
    readonly elements_chain: string | null,
    readonly raw: RawJsonFields,
  ) {}

  get properties(): Json {
    return (this.parsedProperties ??= JSON.parse(this.raw.properties) as Json);
  }
  get person_properties(): Json | null {
    if (this.parsedPerson === undefined) this.parsedPerson = parseObject(this.raw.person_properties);
    return this.parsedPerson;
  }
  get set(): Json | null {
    if (this.parsedSet === undefined) this.parsedSet = parseObject(this.raw.set);
    return this.parsedSet;
  }
  get set_once(): Json | null {
    if (this.parsedSetOnce === undefined) this.parsedSetOnce = parseObject(this.raw.set_once);
    return this.parsedSetOnce;
  }
}

const NO_PERSON_OPS = { set: null, setOnce: null };
const objectJson = (v: unknown): string | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? JSON.stringify(v) : null);

/**
 * `set` / `set_once` are the event's `$set` / `$set_once`. Few events carry them, so the text is
 * searched first (a plain substring search) and parsed only when it may hold one.
 */
export function personOperations(properties: string): { set: string | null; setOnce: string | null } {
  if (properties.indexOf('"$set') === -1) return NO_PERSON_OPS;
  const parsed = JSON.parse(properties) as Json;
  return { set: objectJson(parsed.$set), setOnce: objectJson(parsed.$set_once) };
}

/** Index of person_id in a standard row (uuid, event, properties, distinct_id, team_id, timestamp, created_at, person_id, elements_chain). */
export const PERSON_ID = 7;

/** A standard row (raw mode: an array in that column order); person properties from the cache. */
export function recordFromRow(r: unknown[], personProperties: (personId: string | null) => string | null): ExportRecord {
  const properties = r[2] as string;
  const personId = r[PERSON_ID] as string | null;
  const chain = r[8] as string | null;
  const ops = personOperations(properties);
  return new StoredRecord(
    r[0] as string,
    r[1] as string,
    r[3] as string,
    r[4] as number,
    r[5] as string,
    r[6] as string,
    personId,
    chain === '' ? null : chain,
    { properties, person_properties: personProperties(personId), set: ops.set, set_once: ops.setOnce },
  );
}

/** Columns holding a whole JSON field come back as JSON text; they are exported as objects. */
const JSON_FIELD_SQL = new Set([`"properties"`, `"person_properties"`, `json_extract("properties", '$."$set"')`, `json_extract("properties", '$."$set_once"')`]);

/**
 * A row of a hogql_query export: identity columns (kept so every destination works and re-runs
 * stay idempotent on uuid), then the query's columns, which become the record's `properties`
 * keyed by alias. The other JSON fields are not exported in this mode.
 */
export function hogqlRecordMapper(columns: readonly CompiledColumn[]): (r: unknown[]) => ExportRecord {
  const parse = columns.map((c) => JSON_FIELD_SQL.has(c.expression));
  return (r) => {
    const properties: Json = {};
    for (let i = 0; i < columns.length; i++) {
      const value = r[6 + i];
      properties[columns[i].alias] = parse[i] && typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    }
    return {
      uuid: r[0] as string,
      event: r[1] as string,
      distinct_id: r[2] as string,
      team_id: r[3] as number,
      timestamp: r[4] as string,
      created_at: r[5] as string,
      properties,
      person_id: null,
      person_properties: null,
      set: null,
      set_once: null,
      elements_chain: null,
    };
  };
}
