import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate } from './helpers';

// GeoIP properties for flag evaluation, from a forwarded public address (81.2.69.142 resolves to GB).
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await createFlag(s, { key: 'uk-only', filters: { groups: [{ properties: [{ key: '$geoip_country_code', value: 'GB', type: 'person' }], rollout_percentage: 100 }] } });
});
afterAll(() => s.close());

describe('GeoIP', () => {
  const uk = async (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    (await evaluate(s, '/flags/?v=2', { distinct_id: 'geo-user', ...body }, headers)).flags['uk-only'].enabled;
  const gb = '81.2.69.142';

  it('derives $geoip_* from the first X-Forwarded-For address', async () => {
    expect(await uk({}, { 'x-forwarded-for': gb })).toBe(true);
    expect(await uk({}, { 'x-forwarded-for': `${gb}, 10.0.0.1` })).toBe(true);
    // The connection itself is loopback, which resolves to nothing.
    expect(await uk({})).toBe(false);
  });

  it('accepts the header literally named HTTP_X_FORWARDED_FOR', async () => {
    expect(await uk({}, { HTTP_X_FORWARDED_FOR: gb })).toBe(true);
  });

  it('geoip_disable skips it, and request person_properties win over it', async () => {
    expect(await uk({ geoip_disable: true }, { 'x-forwarded-for': gb })).toBe(false);
    expect(await uk({ person_properties: { $geoip_country_code: 'US' } }, { 'x-forwarded-for': gb })).toBe(false);
    expect(await uk({ person_properties: { $geoip_country_code: 'GB' } }, { 'x-forwarded-for': '8.8.8.8' })).toBe(true);
  });
});
