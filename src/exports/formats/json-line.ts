import type { ExportRecord, RawJsonFields } from '../destinations/destination';

/** Characters JSON.stringify escapes (surrogates: only lone ones, but any sends us to JSON.stringify). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify for a string or null, without its cost for the common string that needs no escape. */
const str = (s: string | null): string => (s === null ? 'null' : NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"');

/** The same line as below, with the JSON fields spliced in from text already serialised. */
function rawJsonLine(r: ExportRecord, raw: RawJsonFields): string {
  return storedJsonLine(r.uuid, r.event, raw.properties, r.distinct_id, r.team_id, r.timestamp, r.created_at, r.person_id ?? null, raw.person_properties, raw.set, raw.set_once, r.elements_chain ?? null);
}

/**
 * A stored event's line from its fields, the JSON ones as their texts: what jsonLine gives for the
 * record made of them, for a source that encodes rows without making records first.
 */
export function storedJsonLine(
  uuid: string,
  event: string,
  properties: string,
  distinctId: string,
  teamId: number,
  timestamp: string,
  createdAt: string,
  personId: string | null,
  personProperties: string | null,
  set: string | null,
  setOnce: string | null,
  elementsChain: string | null,
): string {
  return (
    '{"uuid":' + str(uuid) + ',"event":' + str(event) + ',"properties":' + properties +
    ',"distinct_id":' + str(distinctId) + ',"team_id":' + JSON.stringify(teamId) +
    ',"timestamp":' + str(timestamp) + ',"created_at":' + str(createdAt) + ',"person_id":' + str(personId) +
    ',"person_properties":' + (personProperties ?? 'null') + ',"set":' + (set ?? 'null') +
    ',"set_once":' + (setOnce ?? 'null') + ',"elements_chain":' + str(elementsChain) + '}\n'
  );
}

/**
 * One JSONLines row, newline included. Stringifying a fresh literal of fixed shape hits V8's
 * fast JSON path (measured ~1.5x faster than concatenating per-field stringify calls) and fixes
 * the key order to EXPORTED_FIELDS. `?? null` keeps absent optional fields as explicit nulls.
 */
export function jsonLine(r: ExportRecord): string {
  if (r.raw) return rawJsonLine(r, r.raw);
  return (
    JSON.stringify({
      uuid: r.uuid,
      event: r.event,
      properties: r.properties ?? null,
      distinct_id: r.distinct_id,
      team_id: r.team_id,
      timestamp: r.timestamp,
      created_at: r.created_at,
      person_id: r.person_id ?? null,
      person_properties: r.person_properties ?? null,
      set: r.set ?? null,
      set_once: r.set_once ?? null,
      elements_chain: r.elements_chain ?? null,
    }) + '\n'
  );
}

/** A whole batch as one string, so the sink sees one write per batch instead of one per row. */
export function jsonLines(records: readonly ExportRecord[]): string {
  let out = '';
  for (let i = 0; i < records.length; i++) out += jsonLine(records[i]);
  return out;
}
