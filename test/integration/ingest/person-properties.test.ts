import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { settle } from '../../support/posthog';
import { json } from '../../support/json';
import { createFlag, evaluate } from '../flags/helpers';

// 81.2.69.142 resolves to GB in the bundled GeoLite2 data (as in flags/geoip.test.ts). It only
// travels as a header value to the loopback server: nothing connects to it.
const GB_ADDRESS = '81.2.69.142';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const capture = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: s.credentials.project_api_key, ...body }),
  });

const personOf = async (distinctId: string) => {
  await settle(s);
  const res = await s.api(`/api/projects/${s.credentials.project_id}/persons/?distinct_id=${encodeURIComponent(distinctId)}`);
  expect(res.status).toBe(200);
  return (await json(res)).results[0];
};

describe('ingestion over HTTP: person properties lifted from events', () => {
  it('a browser $pageview from a GeoIP-resolvable address puts browser, OS, URL, UTM and GeoIP properties and their $initial_ twins on the person', async () => {
    const properties = {
      $browser: 'Chrome',
      $os: 'Mac OS X',
      $current_url: 'https://shop.example/?utm_source=newsletter',
      utm_source: 'newsletter',
      plan: 'not lifted',
    };
    const res = await capture({ event: '$pageview', distinct_id: 'visitor-1', properties }, { 'x-forwarded-for': GB_ADDRESS });
    expect(res.status).toBe(200);

    const person = await personOf('visitor-1');
    expect(person.properties).toMatchObject({
      $browser: 'Chrome',
      $initial_browser: 'Chrome',
      $os: 'Mac OS X',
      $initial_os: 'Mac OS X',
      $current_url: properties.$current_url,
      $initial_current_url: properties.$current_url,
      utm_source: 'newsletter',
      $initial_utm_source: 'newsletter',
      $geoip_country_code: 'GB',
      $initial_geoip_country_code: 'GB',
    });
    expect(person.properties).not.toHaveProperty('plan');

    // A later visit moves the latest values but never the first touch.
    await capture({ event: '$pageview', distinct_id: 'visitor-1', properties: { $browser: 'Firefox', utm_source: 'ads' } });
    expect((await personOf('visitor-1')).properties).toMatchObject({
      $browser: 'Firefox',
      $initial_browser: 'Chrome',
      utm_source: 'ads',
      $initial_utm_source: 'newsletter',
    });
  });

  it('a personless event lifts nothing', async () => {
    await capture(
      { event: '$pageview', distinct_id: 'visitor-2', properties: { $browser: 'Chrome', $process_person_profile: false } },
      { 'x-forwarded-for': GB_ADDRESS },
    );
    await settle(s);
    const res = await s.api(`/api/projects/${s.credentials.project_id}/persons/?distinct_id=visitor-2`);
    expect((await json(res)).results).toEqual([]);
  });

  it('flags targeting $browser and $initial_geoip_country_code match on the stored person, with no properties in the request', async () => {
    await createFlag(s, {
      key: 'chrome-users',
      filters: { groups: [{ properties: [{ key: '$initial_browser', value: 'Chrome', type: 'person' }], rollout_percentage: 100 }] },
    });
    await createFlag(s, {
      key: 'safari-users',
      filters: { groups: [{ properties: [{ key: '$browser', value: 'Safari', type: 'person' }], rollout_percentage: 100 }] },
    });
    await createFlag(s, {
      key: 'first-seen-in-uk',
      filters: { groups: [{ properties: [{ key: '$initial_geoip_country_code', value: 'GB', type: 'person' }], rollout_percentage: 100 }] },
    });
    await capture({ event: '$pageview', distinct_id: 'visitor-3', properties: { $browser: 'Safari' } }, { 'x-forwarded-for': GB_ADDRESS });
    await settle(s);

    // No X-Forwarded-For here: the loopback connection resolves to no GeoIP, so only the stored person can match.
    const flags = async (distinctId: string) => (await evaluate(s, '/flags/?v=2', { distinct_id: distinctId })).flags;
    const visitor1 = await flags('visitor-1');
    expect(visitor1['chrome-users'].enabled).toBe(true);
    expect(visitor1['safari-users'].enabled).toBe(false);
    expect(visitor1['first-seen-in-uk'].enabled).toBe(true);
    const visitor3 = await flags('visitor-3');
    expect(visitor3['safari-users'].enabled).toBe(true);
    expect(visitor3['chrome-users'].enabled).toBe(false);
    expect(visitor3['first-seen-in-uk'].enabled).toBe(true);
    const stranger = await flags('never-seen');
    expect(stranger['chrome-users'].enabled).toBe(false);
    expect(stranger['first-seen-in-uk'].enabled).toBe(false);
  });
});
