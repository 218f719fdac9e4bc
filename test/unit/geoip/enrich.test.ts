import { beforeAll, describe, expect, it } from 'vitest';
import { enrichWithGeoIp, type GeoIp } from '../../../src/geoip';
import { bundledGeoIp } from './bundled';

describe('enrichWithGeoIp', () => {
  let geo: GeoIp;
  beforeAll(async () => {
    geo = await bundledGeoIp();
  });

  it('adds the $geoip_* properties and keeps the rest', () => {
    const properties = { $browser: 'Firefox', plan: 'pro' };
    const enriched = enrichWithGeoIp(properties, '81.2.69.142', geo);
    expect(enriched).toEqual({
      $browser: 'Firefox',
      plan: 'pro',
      $geoip_city_name: 'Bracknell',
      $geoip_country_name: 'United Kingdom',
      $geoip_country_code: 'GB',
      $geoip_continent_name: 'Europe',
      $geoip_continent_code: 'EU',
      $geoip_postal_code: 'RG12',
      $geoip_time_zone: 'Europe/London',
    });
    expect(properties).toEqual({ $browser: 'Firefox', plan: 'pro' });
  });

  it('lets values the request supplied win, even null ones', () => {
    const enriched = enrichWithGeoIp({ $geoip_country_code: 'FR', $geoip_city_name: null }, '81.2.69.142', geo);
    expect(enriched.$geoip_country_code).toBe('FR');
    expect(enriched.$geoip_city_name).toBeNull();
    expect(enriched.$geoip_country_name).toBe('United Kingdom');
    expect(enriched.$geoip_time_zone).toBe('Europe/London');
  });

  it('skips enrichment when $geoip_disable is true', () => {
    const properties = { $geoip_disable: true, plan: 'pro' };
    expect(enrichWithGeoIp(properties, '81.2.69.142', geo)).toBe(properties);
  });

  it('only honours a boolean true $geoip_disable', () => {
    const enriched = enrichWithGeoIp({ $geoip_disable: 'true' }, '81.2.69.142', geo);
    expect(enriched.$geoip_country_code).toBe('GB');
  });

  it('returns the same object when nothing changes', () => {
    const properties = { plan: 'pro' };
    expect(enrichWithGeoIp(properties, null, geo)).toBe(properties);
    expect(enrichWithGeoIp(properties, undefined, geo)).toBe(properties);
    expect(enrichWithGeoIp(properties, '', geo)).toBe(properties);
    expect(enrichWithGeoIp(properties, '127.0.0.1', geo)).toBe(properties);
    expect(enrichWithGeoIp(properties, 'garbage', geo)).toBe(properties);
    const complete = enrichWithGeoIp({}, '81.2.69.142', geo);
    expect(enrichWithGeoIp(complete, '2a00:1450:4001:80b::200e', geo)).toBe(complete);
  });

  it('leaves unknown values out rather than adding empty ones', () => {
    const enriched = enrichWithGeoIp({}, '8.8.8.8', geo);
    expect(enriched.$geoip_country_code).toBe('US');
    expect(enriched).not.toHaveProperty('$geoip_city_name');
    expect(enriched).not.toHaveProperty('$geoip_postal_code');
  });
});
