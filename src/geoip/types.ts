/** The properties PostHog derives from the client IP, in the order PostHog lists them. */
export const GEOIP_PROPERTY_KEYS = [
  '$geoip_city_name',
  '$geoip_country_name',
  '$geoip_country_code',
  '$geoip_continent_name',
  '$geoip_continent_code',
  '$geoip_postal_code',
  '$geoip_time_zone',
] as const;

export type GeoPropertyKey = (typeof GEOIP_PROPERTY_KEYS)[number];

/**
 * A key is absent (not empty) when the database does not know the value. Read-only because
 * lookups share one object per database record.
 */
export type GeoProperties = { readonly [K in GeoPropertyKey]?: string };

export interface GeoIp {
  /** Null for non-public, malformed or unknown addresses. Synchronous: it runs on the flag hot path. */
  lookup(ip: string): GeoProperties | null;
}

/** A GeoIp that knows nothing: the stand-in when no database could be loaded or GeoIP is off. */
export const NO_GEOIP: GeoIp = { lookup: () => null };
