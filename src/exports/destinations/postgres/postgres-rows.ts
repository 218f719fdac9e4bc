import type { ExportRecord, RawJsonFields } from '../destination';

const ipOf = (r: ExportRecord): string | null => {
  if (r.ip) return r.ip;
  const ip = r.properties?.$ip;
  return typeof ip === 'string' && ip !== '' ? ip : null;
};

/**
 * PostgreSQL rejects NUL in text and jsonb (22P05, 22021). Drop `\u0000` escapes — but not an
 * escaped backslash followed by the letters `u0000`, hence the even run of backslashes.
 */
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

const str = JSON.stringify;

/** The same object as rowsPayload writes, with the JSON fields spliced in from their text. */
const rawRow = (r: ExportRecord, raw: RawJsonFields): string =>
  `{"uuid":${str(r.uuid)},"event":${str(r.event)},"properties":${raw.properties},"elements":${str(r.elements_chain ?? null)},` +
  `"set":${raw.set ?? 'null'},"set_once":${raw.set_once ?? 'null'},"distinct_id":${str(r.distinct_id)},"team_id":${str(r.team_id)},` +
  `"ip":${str(ipOf(r))},"site_url":${str(r.site_url ?? null)},"timestamp":${str(r.timestamp)}}`;

/** One chunk of records as the JSON array the insert statement reads with jsonb_to_recordset. */
export function rowsPayload(records: readonly ExportRecord[]): string {
  let out = '[';
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (i > 0) out += ',';
    if (r.raw) {
      out += rawRow(r, r.raw);
      continue;
    }
    out += JSON.stringify({
      uuid: r.uuid,
      event: r.event,
      properties: r.properties ?? null,
      // PostHog stores the elements chain string as a JSON string value here.
      elements: r.elements_chain ?? null,
      set: r.set ?? null,
      set_once: r.set_once ?? null,
      distinct_id: r.distinct_id,
      team_id: r.team_id,
      ip: ipOf(r),
      site_url: r.site_url ?? null,
      timestamp: r.timestamp,
    });
  }
  out += ']';
  return out.includes('\\u0000') ? out.replace(NUL_ESCAPE, '$1') : out;
}
