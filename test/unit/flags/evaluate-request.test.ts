import { describe, expect, it } from 'vitest';
import { evaluateRequest, type FlagDataSource } from '../../../src/flags/serving';
import type { EvaluateAllResult, FlagDefinition } from '../../../src/flags';
import { flag, idWhere, NOW } from './helpers';

// evaluateRequest over a data source whose reads answer at once, with promises, or fail (by
// throwing or rejecting): a request whose reads all answer at once is evaluated synchronously, and
// a failing read leaves out exactly the flags that needed it, however it failed.

const CONTINUITY = 'smooth-rollout';
const anonIn = idWhere(CONTINUITY, (h) => h <= 0.5, 'anon-');
const userOut = idWhere(CONTINUITY, (h) => h > 0.5, 'user-');

const definitions: FlagDefinition[] = [
  flag('always', { groups: [{ properties: [], rollout_percentage: 100 }] }),
  flag('plan-pro', { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] }),
  flag('gold-company', {
    aggregation_group_type_index: 0,
    groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }],
  }),
  flag('in-cohort-5', { groups: [{ properties: [{ key: 'id', value: 5, type: 'cohort' }], rollout_percentage: 100 }] }),
  flag(CONTINUITY, { groups: [{ properties: [], rollout_percentage: 50 }] }, { ensure_experience_continuity: true }),
];

type Read = 'definitions' | 'groupTypeMapping' | 'personProperties' | 'groupProperties' | 'hashKeyOverride' | 'personCohorts';
type Answer = 'at once' | 'promise';

/** The stored data of one person in a gold company; `failing` reads throw (at once) or reject (promise). */
function source(answer: Answer, failing: Read[] = [], calls: Read[] = []): FlagDataSource {
  const reply = <T>(read: Read, value: T) => {
    calls.push(read);
    const failure = failing.includes(read) ? new Error(`${read} unavailable`) : undefined;
    if (answer === 'promise') return failure ? Promise.reject(failure) : Promise.resolve(value);
    if (failure) throw failure;
    return value;
  };
  return {
    definitions: () => reply('definitions', definitions),
    groupTypeMapping: () => reply('groupTypeMapping', { 0: 'company' }),
    personProperties: () => reply('personProperties', { plan: 'pro' }),
    groupProperties: (_projectId, index, key) => reply('groupProperties', index === 0 && key === 'acme' ? { tier: 'gold' } : null),
    hashKeyOverride: () => reply('hashKeyOverride', anonIn),
    personCohorts: () => reply('personCohorts', new Set([5])),
    geoProperties: () => null,
  };
}

const request = { distinct_id: userOut, groups: { company: 'acme' } };
const values = (result: EvaluateAllResult) => Object.fromEntries(Object.entries(result.flags).map(([key, e]) => [key, e.enabled]));
const healthy: Record<string, boolean> = { always: true, 'plan-pro': true, 'gold-company': true, 'in-cohort-5': true, [CONTINUITY]: true };
const healthyWithout = (key: string) => Object.fromEntries(Object.entries(healthy).filter(([k]) => k !== key));

describe('evaluateRequest over reads answered at once or with promises', () => {
  it('evaluates synchronously, with no promise, when every read answers at once', () => {
    const result = evaluateRequest(source('at once'), 1, request, undefined, NOW);
    expect(result).not.toBeInstanceOf(Promise);
    expect(values(result as EvaluateAllResult)).toEqual(healthy);
    expect((result as EvaluateAllResult).errorsWhileComputingFlags).toBe(false);
  });

  it('answers the same once reads that return promises have settled', async () => {
    const result = evaluateRequest(source('promise'), 1, request, undefined, NOW);
    expect(result).toBeInstanceOf(Promise);
    const settled = await result;
    expect(values(settled)).toEqual(healthy);
    expect(settled.errorsWhileComputingFlags).toBe(false);
  });

  const failures: [Read, string][] = [
    ['personProperties', 'plan-pro'],
    ['groupProperties', 'gold-company'],
    ['personCohorts', 'in-cohort-5'],
    ['hashKeyOverride', CONTINUITY],
  ];
  for (const [read, affected] of failures) {
    it(`a rejected ${read} read leaves out only ${affected}, as a thrown one does`, async () => {
      const rejected = await evaluateRequest(source('promise', [read]), 1, request, undefined, NOW);
      expect(values(rejected)).toEqual(healthyWithout(affected));
      expect(rejected.errorsWhileComputingFlags).toBe(true);
      const thrown = evaluateRequest(source('at once', [read]), 1, request, undefined, NOW);
      expect(thrown).not.toBeInstanceOf(Promise);
      expect(values(thrown as EvaluateAllResult)).toEqual(values(rejected));
    });
  }

  it('a rejected read among others that answer at once still errors only its flags', async () => {
    const mixed = source('at once');
    mixed.personProperties = () => Promise.reject(new Error('person store unavailable'));
    const result = evaluateRequest(mixed, 1, request, undefined, NOW);
    expect(result).toBeInstanceOf(Promise);
    expect(values(await result)).toEqual(healthyWithout('plan-pro'));
  });

  it('a rejected group type mapping fails the request, as a thrown one does', async () => {
    await expect(evaluateRequest(source('promise', ['groupTypeMapping']), 1, request, undefined, NOW)).rejects.toThrow('groupTypeMapping unavailable');
    expect(() => evaluateRequest(source('at once', ['groupTypeMapping']), 1, request, undefined, NOW)).toThrow('groupTypeMapping unavailable');
  });

  it('reads the mapping and groups only for a request naming groups, the override only for continuity flags', async () => {
    const calls: Read[] = [];
    const ungrouped = await evaluateRequest(source('promise', [], calls), 1, { distinct_id: userOut }, undefined, NOW);
    expect(calls.sort()).toEqual(['definitions', 'hashKeyOverride', 'personCohorts', 'personProperties']);
    expect(ungrouped.flags['gold-company'].enabled).toBe(false);

    const plainCalls: Read[] = [];
    const plain = source('promise', [], plainCalls);
    plain.definitions = () => definitions.filter((d) => d.key === 'always');
    await evaluateRequest(plain, 1, request, undefined, NOW);
    expect(plainCalls.sort()).toEqual(['groupProperties', 'groupTypeMapping', 'personProperties']);
  });
});
