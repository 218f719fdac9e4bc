import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate, ingest } from './helpers';

// Over real HTTP: a flag on `$initial_*` person properties matches a person who so far only has the
// counterpart, as on PostHog's flags service (rust/feature-flags `populate_missing_initial_properties`
// over the stored properties merged with the request's `person_properties`).
let s: TestServer;
const person = (key: string, value: string) => ({ key, value, operator: 'exact', type: 'person' });
const KEYS = ['initial-chrome', 'initial-newsletter', 'initial-utm-name', 'browser-chrome'];

beforeAll(async () => {
  s = await startTestServer();
  // Properties given with an explicit $set only (no event properties), so no $initial_ twin is stored.
  await ingest(s, [
    { event: '$identify', distinct_id: 'only-current', properties: { $set: { $browser: 'Chrome', utm_source: 'newsletter', utm_name: 'spring' } } },
    { event: '$identify', distinct_id: 'has-initial', properties: { $set: { $browser: 'Chrome' }, $set_once: { $initial_browser: 'Firefox' } } },
    { event: '$identify', distinct_id: 'only-initial', properties: { $set_once: { $initial_browser: 'Chrome' } } },
  ]);
  const on = (key: string, filter: Record<string, unknown>) => createFlag(s, { key, filters: { groups: [{ properties: [filter], rollout_percentage: 100 }] } });
  await on('initial-chrome', person('$initial_browser', 'Chrome'));
  await on('initial-newsletter', person('$initial_utm_source', 'newsletter'));
  await on('initial-utm-name', person('$initial_utm_name', 'spring'));
  await on('browser-chrome', person('$browser', 'Chrome'));
});
afterAll(() => s.close());

const flagsV2 = async (body: Record<string, unknown>) => {
  const out = await evaluate(s, '/flags/?v=2', { flag_keys_to_evaluate: KEYS, ...body });
  expect(out.errorsWhileComputingFlags).toBe(false);
  return Object.fromEntries(Object.entries(out.flags as Record<string, { enabled: boolean }>).map(([k, v]) => [k, v.enabled]));
};

describe('$initial_* filled from the counterpart when flags are evaluated', () => {
  it('given a stored person with only $browser and utm_source, when /flags evaluates, then the $initial_ flags match', async () => {
    expect(await flagsV2({ distinct_id: 'only-current' })).toEqual({
      'initial-chrome': true,
      'initial-newsletter': true,
      // utm_name is not on the flags service's list.
      'initial-utm-name': false,
      'browser-chrome': true,
    });
  });

  it('the same through /decide (v3 and v4)', async () => {
    const v3 = await evaluate(s, '/decide/?v=3', { distinct_id: 'only-current', flag_keys_to_evaluate: KEYS });
    expect(v3.featureFlags).toMatchObject({ 'initial-chrome': true, 'initial-newsletter': true, 'initial-utm-name': false });
    const v4 = await evaluate(s, '/decide/?v=4', { distinct_id: 'only-current', flag_keys_to_evaluate: KEYS });
    expect(v4.flags['initial-chrome']).toMatchObject({ enabled: true, reason: { code: 'condition_match', condition_index: 0 } });
  });

  it('given a stored $initial_browser, when $browser differs, then the stored initial value decides', async () => {
    const r = await flagsV2({ distinct_id: 'has-initial' });
    expect(r['initial-chrome']).toBe(false);
    expect(r['browser-chrome']).toBe(true);
  });

  it('given only $initial_browser, then $browser is not filled from it', async () => {
    const r = await flagsV2({ distinct_id: 'only-initial' });
    expect(r['initial-chrome']).toBe(true);
    expect(r['browser-chrome']).toBe(false);
  });

  it('given an unknown person, when the request sends $browser in person_properties, then $initial_browser is filled from it', async () => {
    expect((await flagsV2({ distinct_id: 'nobody', person_properties: { $browser: 'Chrome' } }))['initial-chrome']).toBe(true);
    expect((await flagsV2({ distinct_id: 'nobody' }))['initial-chrome']).toBe(false);
  });

  it('request properties are merged over stored ones first: the request’s $browser fills the twin', async () => {
    // Stored $browser is Chrome; the request says Safari, so the filled $initial_browser is Safari.
    expect((await flagsV2({ distinct_id: 'only-current', person_properties: { $browser: 'Safari' } }))['initial-chrome']).toBe(false);
    // A request $initial_browser is a present twin: it is used as sent.
    expect((await flagsV2({ distinct_id: 'only-current', person_properties: { $initial_browser: 'Chrome', $browser: 'Safari' } }))['initial-chrome']).toBe(true);
  });

  it('a stored $initial_browser is not replaced by the request’s $browser', async () => {
    expect((await flagsV2({ distinct_id: 'has-initial', person_properties: { $browser: 'Chrome' } }))['initial-chrome']).toBe(false);
  });
});
