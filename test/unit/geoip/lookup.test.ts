import { beforeAll, describe, expect, it } from 'vitest';
import { GEOIP_PROPERTY_KEYS, type GeoIp } from '../../../src/geoip';
import { bundledGeoIp } from './bundled';

const BRACKNELL = {
  $geoip_city_name: 'Bracknell',
  $geoip_country_name: 'United Kingdom',
  $geoip_country_code: 'GB',
  $geoip_continent_name: 'Europe',
  $geoip_continent_code: 'EU',
  $geoip_postal_code: 'RG12',
  $geoip_time_zone: 'Europe/London',
};

describe('GeoIp.lookup against the bundled GeoLite2 data', () => {
  let geo: GeoIp;
  beforeAll(async () => {
    geo = await bundledGeoIp();
  });

  it('resolves a public IPv4 to all seven properties', () => {
    expect(geo.lookup('81.2.69.142')).toEqual(BRACKNELL);
  });

  it('omits what the database does not know instead of reporting empty strings', () => {
    const found = geo.lookup('8.8.8.8');
    expect(found).toMatchObject({
      $geoip_country_code: 'US',
      $geoip_country_name: 'United States',
      $geoip_continent_name: 'North America',
      $geoip_continent_code: 'NA',
    });
    expect(found).not.toHaveProperty('$geoip_city_name');
    expect(found).not.toHaveProperty('$geoip_postal_code');
    for (const value of Object.values(found ?? {})) expect(value).not.toBe('');
  });

  it('only ever reports the seven PostHog properties', () => {
    for (const ip of ['81.2.69.142', '8.8.8.8', '2a00:1450:4001:80b::200e']) {
      for (const key of Object.keys(geo.lookup(ip) ?? {})) expect(GEOIP_PROPERTY_KEYS).toContain(key);
    }
  });

  it('resolves a public IPv6 address', () => {
    expect(geo.lookup('2a00:1450:4001:80b::200e')).toEqual({
      $geoip_city_name: 'Frankfurt am Main',
      $geoip_country_name: 'Germany',
      $geoip_country_code: 'DE',
      $geoip_continent_name: 'Europe',
      $geoip_continent_code: 'EU',
      $geoip_postal_code: '60313',
      $geoip_time_zone: 'Europe/Berlin',
    });
    expect(geo.lookup('2001:4860:4860::8888')).toMatchObject({ $geoip_country_code: 'US', $geoip_continent_code: 'NA' });
  });

  it('looks IPv4-mapped IPv6 up as IPv4', () => {
    expect(geo.lookup('::ffff:81.2.69.142')).toEqual(BRACKNELL);
    expect(geo.lookup('::ffff:5102:458e')).toEqual(BRACKNELL);
  });

  it.each(['127.0.0.1', '10.0.0.1', '192.168.1.20', '172.20.1.1', '169.254.10.10', '100.64.1.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1'])(
    'gives null for non-public %s',
    (ip) => {
      expect(geo.lookup(ip)).toBeNull();
    },
  );

  it.each(['', 'not-an-ip', '999.1.1.1', '1.2.3.4:8080', '2001:db8::g'])('gives null for malformed %j', (ip) => {
    expect(geo.lookup(ip)).toBeNull();
  });

  it('gives null for a public address the database has no record of', () => {
    expect(geo.lookup('1.1.1.1')).toBeNull();
  });

  it('hands out the same frozen answer for a repeated address', () => {
    const first = geo.lookup('81.2.69.142');
    expect(geo.lookup('81.2.69.142')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
