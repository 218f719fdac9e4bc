import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server';
import fixture from '../../unit/flags/fixtures/consistency.json';
import { createFlag, evaluate, inParallel } from './helpers';

// PostHog's published SDK vectors, end to end: created through the API, answered by /decide over HTTP.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  for (const { flag } of [fixture.simpleFlag, fixture.multivariateFlag])
    await createFlag(s, { key: flag.key, name: flag.key, filters: flag.filters, active: flag.active });
});
afterAll(() => s.close());

const ids = Array.from({ length: 1000 }, (_, i) => `distinct_id_${i}`);

describe('SDK consistency vectors through POST /decide/?v=3', () => {
  it('answers both flags for all 1000 ids exactly as published (false is present as false)', async () => {
    const answers = await inParallel(ids, 8, (id) => evaluate(s, '/decide/?v=3', { distinct_id: id }));
    const simple = answers.map((a) => a.featureFlags['simple-flag']);
    const multi = answers.map((a) => a.featureFlags['multivariate-flag']);
    expect(simple).toEqual(fixture.simpleFlag.results);
    expect(multi).toEqual(fixture.multivariateFlag.results);
    expect(simple.filter((v) => v === true)).toHaveLength(446);
    // v3 lists every evaluated flag, off ones included, so "absent" never stands in for false.
    for (const a of answers) expect(Object.keys(a.featureFlags).sort()).toEqual(['multivariate-flag', 'simple-flag']);
  });
});
