import { countryInfo } from './countries';
import type { GeoProperties, GeoPropertyKey } from './types';

type Draft = Partial<Record<GeoPropertyKey, string>>;

/**
 * One record of the @ip-location-db GeoLite2 city files, e.g. `{ city: 'Bracknell',
 * country_code: 'GB', postcode: 'RG12', timezone: 'Europe/London', state1, state2, latitude,
 * longitude }`. Unknown values come as empty strings; the fields are read defensively since the
 * file is data from outside.
 */
export type CityRecord = Readonly<Record<string, unknown>>;

export function isCityRecord(value: unknown): value is CityRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The PostHog properties for one record; null when it says nothing useful. */
export function toGeoProperties(record: CityRecord): GeoProperties | null {
  const out: Draft = {};
  set(out, '$geoip_city_name', record.city);
  const countryCode = nonEmpty(record.country_code)?.toUpperCase();
  if (countryCode !== undefined) {
    out.$geoip_country_code = countryCode;
    const info = countryInfo(countryCode);
    if (info !== undefined) {
      out.$geoip_country_name = info.countryName;
      out.$geoip_continent_name = info.continentName;
      out.$geoip_continent_code = info.continentCode;
    }
  }
  set(out, '$geoip_postal_code', record.postcode);
  set(out, '$geoip_time_zone', record.timezone);
  return Object.keys(out).length === 0 ? null : out;
}

function set(out: Draft, key: GeoPropertyKey, value: unknown): void {
  const v = nonEmpty(value);
  if (v !== undefined) out[key] = v;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
