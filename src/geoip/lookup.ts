import { lookupTarget } from './address';
import { isCityRecord, toGeoProperties, type CityRecord } from './record';
import type { GeoIp, GeoProperties } from './types';

/** What the GeoIp needs from a database reader; maxmind's `Reader` fits. */
export interface RecordSource {
  get(ip: string): unknown;
}

export interface RecordSources {
  v4?: RecordSource;
  v6?: RecordSource;
}

/**
 * A GeoIp over one reader per address family (the bundled files split them). A family without
 * a reader answers null, so a half-loaded database still serves the other half.
 */
export function geoIpFromSources(sources: RecordSources): GeoIp {
  // maxmind's LRU hands back the same record object for a repeated address, so converting
  // each record once makes hot-path repeats allocation-free. The results are frozen because
  // they are shared between callers.
  const converted = new WeakMap<CityRecord, GeoProperties | null>();

  const convert = (record: CityRecord): GeoProperties | null => {
    let props = converted.get(record);
    if (props === undefined) {
      const fresh = toGeoProperties(record);
      props = fresh === null ? null : Object.freeze(fresh);
      converted.set(record, props);
    }
    return props;
  };

  return {
    lookup(ip: string): GeoProperties | null {
      const target = lookupTarget(ip);
      if (target === null) return null;
      const source = target.family === 4 ? sources.v4 : sources.v6;
      if (source === undefined) return null;
      let record: unknown;
      try {
        record = source.get(target.address);
      } catch {
        return null; // a reader that rejects the address has nothing to say about it
      }
      return isCityRecord(record) ? convert(record) : null;
    },
  };
}
