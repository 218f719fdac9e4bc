import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagHash } from '../../../src/flags';
import { startTestServer, type TestServer } from '../../support/server';
import { createFlag, evaluate, ingest } from './helpers';

// Experience continuity across an anonymous -> identified switch, with ids chosen by the real hash
// so that the answer flips exactly when (and only when) the stored override is used.
let s: TestServer;
const KEY = 'smooth-rollout';
const inRollout = (id: string) => flagHash(KEY, id) <= 0.5;
const pick = (prefix: string, wantIn: boolean) => {
  for (let i = 0; ; i++) if (inRollout(`${prefix}-${i}`) === wantIn) return `${prefix}-${i}`;
};
const anonIn = pick('anon', true);
const identifiedOut = pick('user', false);

beforeAll(async () => {
  s = await startTestServer();
  await createFlag(s, { key: KEY, ensure_experience_continuity: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  // The same rollout without continuity: must keep bucketing on the distinct id.
  await createFlag(s, { key: 'plain-rollout', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  await createFlag(s, { key: 'always', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
});
afterAll(() => s.close());

const flags = async (body: Record<string, unknown>) => (await evaluate(s, '/decide/?v=3', body)).featureFlags;

describe('experience continuity', () => {
  it('buckets on the anonymous id stored when the person identified', async () => {
    expect((await flags({ distinct_id: anonIn }))[KEY]).toBe(true);
    expect((await flags({ distinct_id: identifiedOut }))[KEY]).toBe(false);

    await ingest(s, [{ event: '$identify', distinct_id: identifiedOut, properties: { $anon_distinct_id: anonIn, $set: { email: 'x@example.com' } } }]);

    const after = await flags({ distinct_id: identifiedOut });
    expect(after[KEY]).toBe(true);
    expect(after['plain-rollout']).toBe(flagHash('plain-rollout', identifiedOut) <= 0.5);
  });

  it('uses the request $anon_distinct_id when no override is stored', async () => {
    const fresh = pick('fresh', false);
    expect((await flags({ distinct_id: fresh }))[KEY]).toBe(false);
    expect((await flags({ distinct_id: fresh, $anon_distinct_id: anonIn }))[KEY]).toBe(true);
  });

  it('a failing override lookup leaves only the continuity flag out and reports the error', async () => {
    const source = s.runtime.flagSource;
    const original = source.hashKeyOverride;
    source.hashKeyOverride = () => {
      throw new Error('override store unavailable');
    };
    try {
      const body = await evaluate(s, '/decide/?v=3', { distinct_id: identifiedOut });
      expect(body.errorsWhileComputingFlags).toBe(true);
      expect(body.featureFlags).not.toHaveProperty(KEY);
      expect(body.featureFlags.always).toBe(true);
      // Not asked for, so its failure is not this request's error.
      const other = await evaluate(s, '/decide/?v=3', { distinct_id: identifiedOut, flag_keys_to_evaluate: ['always'] });
      expect(other.errorsWhileComputingFlags).toBe(false);
    } finally {
      source.hashKeyOverride = original;
    }
  });
});
