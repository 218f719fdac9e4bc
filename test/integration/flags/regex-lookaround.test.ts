import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate } from './helpers';

// Over real HTTP: regex filters with lookaround on long property values answer as PostHog's flags
// service (fancy-regex, backtrack limit 10,000; past it, neither regex nor not_regex matches).
let s: TestServer;
const KEYS = ['lookahead-regex', 'lookahead-not-regex', 'anchored-not-regex'];

beforeAll(async () => {
  s = await startTestServer();
  const on = (key: string, operator: string, value: string) =>
    createFlag(s, { key, filters: { groups: [{ properties: [{ key: 'path', type: 'person', operator, value }], rollout_percentage: 100 }] } });
  await on('lookahead-regex', 'regex', '(?=.*beta)admin');
  await on('lookahead-not-regex', 'not_regex', '(?=.*beta)admin');
  await on('anchored-not-regex', 'not_regex', '^(?!/internal)x');
});
afterAll(() => s.close());

const flags = async (path: string) => {
  const out = await evaluate(s, '/flags/?v=2', { distinct_id: 'u', flag_keys_to_evaluate: KEYS, person_properties: { path } });
  return Object.fromEntries(Object.entries(out.flags as Record<string, { enabled: boolean }>).map(([k, v]) => [k, v.enabled]));
};

describe('lookaround in flag regex over long values', () => {
  it('given a 9,000-character value, when a lookahead is retried at every position, then the flag answers', async () => {
    // One backtrack per start position (9,001), within the limit: fancy-regex answers, so do we.
    expect(await flags('/x'.repeat(4_500))).toMatchObject({ 'lookahead-regex': false, 'lookahead-not-regex': true });
    expect(await flags(`${'/x'.repeat(4_000)}/admin/beta`)).toMatchObject({ 'lookahead-regex': true, 'lookahead-not-regex': false });
  });

  it('given a value whose start positions exceed the backtrack limit, then neither regex nor not_regex matches', async () => {
    // fancy-regex retries even a ^-anchored pattern at each of the n + 1 positions: 10,000
    // characters make 10,001 backtracks, one too many; 9,999 are still answered.
    expect((await flags(`/internal${'y'.repeat(9_990)}`))['anchored-not-regex']).toBe(true);
    expect((await flags(`/internal${'y'.repeat(9_991)}`))['anchored-not-regex']).toBe(false);
  });
});
