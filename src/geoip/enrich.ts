import { GEOIP_PROPERTY_KEYS, type GeoIp } from './types';

/**
 * Fills the `$geoip_*` properties PostHog derives from the client IP, for ingestion and flag
 * evaluation alike. Values the request already carries win, whatever they are (PostHog merges
 * GeoIP first and the request on top), and `$geoip_disable: true` opts the event out. Returns
 * the very same object when nothing is added, so callers can cheaply tell and skip copying.
 */
export function enrichWithGeoIp(
  properties: Record<string, unknown>,
  ip: string | null | undefined,
  geo: GeoIp,
): Record<string, unknown> {
  if (properties.$geoip_disable === true || !ip) return properties;
  if (GEOIP_PROPERTY_KEYS.every((key) => Object.hasOwn(properties, key))) return properties;
  const found = geo.lookup(ip);
  if (found === null) return properties;

  let enriched: Record<string, unknown> | undefined;
  for (const key of GEOIP_PROPERTY_KEYS) {
    const value = found[key];
    if (value === undefined || Object.hasOwn(properties, key)) continue;
    enriched ??= { ...properties };
    enriched[key] = value;
  }
  return enriched ?? properties;
}
