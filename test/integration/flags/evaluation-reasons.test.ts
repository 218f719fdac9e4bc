import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagHash } from '../../../src/flags';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { keyWith } from '../experiments/helpers';
import fixture from '../../unit/flags/fixtures/consistency.json';
import { createFlag, evaluate, inParallel, ingest } from './helpers';

/**
 * Issue 23 item 4: `evaluation_reasons` answers what `/flags` answers for every user (same reads,
 * same engine), in PostHog's shape, with the facts that decided each flag: the hash bucket, each
 * condition's properties with the person's values, the continuity key used.
 */
let s: TestServer;
let base: string;
const USERS = 1000;
const id = (i: number) => `reason-user-${i}`;

const reasons = async (distinctId: string, extra = ''): Promise<Json> => {
  const res = await s.api(`${base}/feature_flags/evaluation_reasons/?distinct_id=${encodeURIComponent(distinctId)}${extra}`);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
};

beforeAll(async () => {
  s = await startTestServer();
  base = `/api/projects/${s.credentials.project_id}`;
  await createFlag(s, { key: 'rollout-45', filters: { groups: [{ properties: [], rollout_percentage: 45 }] } });
  // PostHog's published SDK vectors.
  for (const { flag } of [fixture.simpleFlag, fixture.multivariateFlag]) await createFlag(s, { key: flag.key, name: flag.key, filters: flag.filters, active: flag.active });
  await createFlag(s, {
    key: 'split-55',
    filters: {
      groups: [{ properties: [], rollout_percentage: 55 }],
      multivariate: { variants: [50, 20, 20, 5, 5].map((p, i) => ({ key: `variant-${i}`, rollout_percentage: p })) },
    },
  });
  await createFlag(s, {
    key: 'targeted',
    filters: {
      groups: [
        { properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 },
        { properties: [{ key: 'age', value: 30, operator: 'gt', type: 'person' }], rollout_percentage: 50 },
      ],
    },
  });
  await createFlag(s, { key: 'switched-off', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
  await createFlag(s, { key: 'continuous', ensure_experience_continuity: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  // Persons with properties, so the property conditions go both ways.
  await ingest(
    s,
    Array.from({ length: USERS }, (_, i) => ({ event: '$set', distinct_id: id(i), properties: { $set: { plan: i % 3 === 0 ? 'pro' : 'free', age: i % 60 } } })),
  );
});
afterAll(() => s.close());

describe('GET feature_flags/evaluation_reasons/', () => {
  it('agrees with /flags for 1,000 users, flag by flag, value and reason', async () => {
    const mismatches: string[] = [];
    let matchedByCondition = 0;
    await inParallel(
      Array.from({ length: USERS }, (_, i) => id(i)),
      8,
      async (distinctId) => {
        const [flags, explained] = await Promise.all([evaluate(s, '/flags/?v=2', { distinct_id: distinctId }), reasons(distinctId)]);
        for (const [key, served] of Object.entries(flags.flags as Record<string, Json>)) {
          const mine = explained[key];
          const value = served.enabled ? (served.variant ?? true) : false;
          const reason = served.reason.code === 'flag_disabled' ? 'disabled' : served.reason.code;
          if (!mine || mine.value !== value || mine.evaluation.reason !== reason || mine.evaluation.condition_index !== served.reason.condition_index)
            mismatches.push(`${distinctId} ${key}: /flags ${JSON.stringify(served)} vs ${JSON.stringify(mine)}`);
          // The facts agree with the answer: the deciding set is the one that matched, by its hash.
          if (mine?.evaluation.reason === 'condition_match') {
            matchedByCondition++;
            const set = mine.facts.conditions[mine.evaluation.condition_index];
            if (set.outcome !== 'match' || set.hash !== flagHash(key, set.bucketed_on) || (set.rollout_percentage !== null && set.hash > set.rollout_percentage / 100))
              mismatches.push(`${distinctId} ${key}: facts ${JSON.stringify(set)}`);
          }
        }
        if (Object.keys(explained).length !== Object.keys(flags.flags).length) mismatches.push(`${distinctId}: flag sets differ`);
      },
    );
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(matchedByCondition).toBeGreaterThan(USERS);
  });

  it("answers PostHog's published SDK vectors (446 of ids 0..999 get simple-flag)", async () => {
    const answers = await inParallel(Array.from({ length: 1000 }, (_, i) => `distinct_id_${i}`), 8, (d) => reasons(d));
    expect(answers.map((r) => r['simple-flag'].value)).toEqual(fixture.simpleFlag.results);
    expect(answers.map((r) => r['multivariate-flag'].value)).toEqual(fixture.multivariateFlag.results);
    expect(answers.filter((r) => r['simple-flag'].value === true)).toHaveLength(446);
  });

  it('explains a property condition with the person values, and an inactive flag as disabled', async () => {
    // reason-user-3: plan pro (3 % 3 === 0), age 3.
    const r = await reasons(id(3));
    expect(r['targeted'].evaluation).toEqual({ reason: 'condition_match', condition_index: 0 });
    expect(r['targeted'].facts.conditions[0].properties).toEqual([{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'], found: true, actual: 'pro', matched: true }]);
    expect(r['targeted'].facts.conditions[1].outcome).toBe('not_evaluated');
    // reason-user-4: free, age 4: neither set matches; both are explained.
    const miss = await reasons(id(4));
    expect(miss['targeted'].evaluation).toEqual({ reason: 'no_condition_match', condition_index: 1 });
    expect(miss['targeted'].facts.conditions.map((c: Json) => c.outcome)).toEqual(['no_match', 'no_match']);
    expect(miss['targeted'].facts.conditions[1].properties[0]).toMatchObject({ key: 'age', actual: 4, matched: false });
    expect(r['switched-off']).toMatchObject({ value: false, evaluation: { reason: 'disabled', condition_index: null } });
    // The variant: its hash and the range it fell in.
    const mv = Object.values(await inParallel([0, 1, 2, 3, 4, 5], 3, (i) => reasons(id(i)))).map((x) => x['split-55']).find((f: Json) => typeof f.value === 'string');
    const range = mv.facts.variant.ranges.find((v: Json) => v.key === mv.value);
    expect(mv.facts.variant.hash).toBeGreaterThanOrEqual(range.from);
    expect(mv.facts.variant.hash).toBeLessThan(range.to);
  });

  it('explains experience continuity: the stored hash key override is the bucket', async () => {
    const pick = (prefix: string, wantIn: boolean) => {
      for (let i = 0; ; i++) if ((flagHash('continuous', `${prefix}-${i}`) <= 0.5) === wantIn) return `${prefix}-${i}`;
    };
    const anonIn = pick('anon', true);
    const identifiedOut = pick('member', false);
    expect((await reasons(identifiedOut))['continuous'].value).toBe(false);
    await ingest(s, [{ event: '$identify', distinct_id: identifiedOut, properties: { $anon_distinct_id: anonIn } }]);
    const r = await reasons(identifiedOut);
    const flags = await evaluate(s, '/flags/?v=2', { distinct_id: identifiedOut });
    expect(r['continuous'].value).toBe(true);
    expect(flags.flags['continuous'].enabled).toBe(true);
    expect(r['continuous'].facts).toMatchObject({
      continuity: { ensure_experience_continuity: true, hash_key_override: anonIn, used: true },
      person_bucket: anonIn,
      conditions: [{ bucketed_on: anonIn, hash: flagHash('continuous', anonIn), outcome: 'match' }],
    });
    // A flag without continuity keeps bucketing on the distinct id.
    expect(r['rollout-45'].facts).toMatchObject({ continuity: { used: false }, person_bucket: identifiedOut });
  });

  it('explains a condition set variant override', async () => {
    await createFlag(s, {
      key: 'forced-variant',
      filters: {
        groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100, variant: 'b' }],
        multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      },
    });
    const r = await reasons(id(0));
    expect(r['forced-variant']).toMatchObject({ value: 'b', evaluation: { reason: 'condition_match', condition_index: 0 }, facts: { conditions: [{ variant_override: 'b' }] } });
    const flags = await evaluate(s, '/flags/?v=2', { distinct_id: id(0) });
    expect(flags.flags['forced-variant'].variant).toBe('b');
  });

  it('explains a group flag: no group given, then the group key bucketed and its properties read', async () => {
    await ingest(s, [{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { tier: 'enterprise' } } }]);
    await createFlag(s, {
      key: 'company-flag',
      filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'tier', value: 'enterprise', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }] },
    });
    const without = await reasons(id(1));
    expect(without['company-flag']).toMatchObject({ value: false, evaluation: { reason: 'no_group_type', condition_index: 0 }, facts: { conditions: [{ bucketed_on: null, hash: null, outcome: 'no_group_type' }] } });
    const groups = encodeURIComponent(JSON.stringify({ company: 'acme' }));
    const withGroup = await reasons(id(1), `&groups=${groups}`);
    expect(withGroup['company-flag']).toMatchObject({
      value: true,
      evaluation: { reason: 'condition_match', condition_index: 0 },
      facts: { conditions: [{ bucketed_on: 'acme', hash: flagHash('company-flag', 'acme'), outcome: 'match', properties: [{ key: 'tier', actual: 'enterprise', matched: true }] }] },
    });
    const flags = await evaluate(s, '/flags/?v=2', { distinct_id: id(1), groups: { company: 'acme' } });
    expect(flags.flags['company-flag']).toMatchObject({ enabled: true, reason: { code: 'condition_match', condition_index: 0 } });
    const flagsWithout = await evaluate(s, '/flags/?v=2', { distinct_id: id(1) });
    expect(flagsWithout.flags['company-flag'].reason).toMatchObject({ code: 'no_group_type', condition_index: 0 });
  });

  it('refuses without distinct_id, with bad groups, and without feature_flag:read', async () => {
    const missing = await s.api(`${base}/feature_flags/evaluation_reasons/`);
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ type: 'validation_error', detail: 'distinct_id is required', attr: 'distinct_id' });
    const badGroups = await s.api(`${base}/feature_flags/evaluation_reasons/?distinct_id=x&groups=[1]`);
    expect(badGroups.status).toBe(400);
    expect(await json(badGroups)).toMatchObject({ attr: 'groups' });
    const other = await keyWith(s, ['experiment:read']);
    const refused = await s.api(`${base}/feature_flags/evaluation_reasons/?distinct_id=x`, { key: other });
    expect(refused.status).toBe(403);
  });
});
