import type { ExportRecord } from '../destination';

/**
 * One event as PostHog's `/batch/` endpoint takes it. Like PostHog's own HTTP export, person
 * updates ride along as `$set`/`$set_once`, and `$geoip_disable` stops the receiver from
 * re-deriving GeoIP properties the event already carries.
 */
export function batchEvent(r: ExportRecord): Record<string, unknown> {
  const properties: Record<string, unknown> = { ...r.properties, $geoip_disable: true };
  if (r.set && Object.keys(r.set).length > 0) properties.$set = r.set;
  if (r.set_once && Object.keys(r.set_once).length > 0) properties.$set_once = r.set_once;
  if (r.elements_chain && properties.$elements_chain === undefined) properties.$elements_chain = r.elements_chain;
  return { uuid: r.uuid, event: r.event, properties, distinct_id: r.distinct_id, timestamp: r.timestamp };
}

/** The request body; `historical_migration` keeps the receiver from throttling or reordering. */
export function batchBody(token: string, records: readonly ExportRecord[]): string {
  return JSON.stringify({ api_key: token, historical_migration: true, batch: records.map(batchEvent) });
}
