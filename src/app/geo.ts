import { enrichWithGeoIp, openGeoIp } from '../geoip';
import type { GeoLookup } from './open-runtime';

/** Opens the GeoIP database (bundled, or `dir`); a missing one degrades to no GeoIP with a warning. */
export async function geoLookup(dir: string | undefined, warn: (msg: string) => void): Promise<GeoLookup> {
  const geo = await openGeoIp({ dir, warn });
  return {
    lookup: (ip) => geo.lookup(ip),
    enrich: (properties, ip) => enrichWithGeoIp(properties, ip, geo),
  };
}
