import { openGeoIp, type GeoIp } from '../../../src/geoip';

let opened: Promise<GeoIp> | undefined;

/** The real bundled GeoLite2 databases, opened once per test file (they are ~45 MB). */
export function bundledGeoIp(): Promise<GeoIp> {
  opened ??= openGeoIp({
    warn: (msg) => {
      throw new Error(`bundled GeoIP database did not load: ${msg}`);
    },
  });
  return opened;
}
