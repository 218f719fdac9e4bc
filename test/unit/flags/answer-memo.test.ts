import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerMemo, evaluateRequest, flagsV2Body, flagsV2Parts, type FlagDataSource } from '../../../src/flags/serving';
import { flagsResponse, type EvaluateAllResult, type FlagDefinition, type PropertyFilter } from '../../../src/flags';
import { flag, NOW } from './helpers';

// The remembered answers against the plain evaluation, which stays the reference: over random
// flags, persons, groups and sequences of requests and changes (a person's properties, a group's,
// the definitions replaced), a source with a memo answers exactly as one without.

const plans = ['free', 'pro', 'enterprise'];
const countries = ['GB', 'US', 'DE'];

const personFilter: fc.Arbitrary<PropertyFilter> = fc.oneof(
  fc.record({ key: fc.constant('plan'), operator: fc.constantFrom('exact', 'is_not'), value: fc.constantFrom(...plans), type: fc.constant('person') }),
  fc.record({ key: fc.constant('country'), operator: fc.constant('exact'), value: fc.subarray(countries, { minLength: 1 }), type: fc.constant('person') }),
  fc.record({ key: fc.constant('seats'), operator: fc.constantFrom('gt', 'lt'), value: fc.integer({ min: 0, max: 100 }).map(String), type: fc.constant('person') }),
  fc.record({ key: fc.constant('distinct_id'), operator: fc.constant('icontains'), value: fc.constantFrom('1', '2'), type: fc.constant('person') }),
);
const groupFilter: fc.Arbitrary<PropertyFilter> = fc.record({
  key: fc.constant('size'),
  operator: fc.constantFrom('gt', 'lt'),
  value: fc.integer({ min: 0, max: 1000 }),
  type: fc.constant('group'),
  group_type_index: fc.constant(0),
});

const definition = (n: number): fc.Arbitrary<FlagDefinition> =>
  fc
    .record({
      group: fc.boolean(),
      sets: fc.array(fc.record({ filters: fc.array(personFilter, { maxLength: 2 }), rollout: fc.option(fc.integer({ min: 0, max: 100 })) }), { minLength: 1, maxLength: 3 }),
      groupFilters: fc.array(groupFilter, { maxLength: 1 }),
      multivariate: fc.boolean(),
      active: fc.boolean(),
      continuity: fc.boolean(),
    })
    .map(({ group, sets, groupFilters, multivariate, active, continuity }) =>
      flag(
        `flag-${n}`,
        {
          ...(group ? { aggregation_group_type_index: 0 } : {}),
          groups: sets.map((s) => ({ properties: group ? groupFilters : s.filters, rollout_percentage: s.rollout })),
          ...(multivariate ? { multivariate: { variants: [{ key: 'a', rollout_percentage: 60 }, { key: 'b', rollout_percentage: 40 }] }, payloads: { a: '{"n":1}' } } : {}),
        },
        { id: n, active: active || n === 0, ensure_experience_continuity: continuity },
      ),
    );

const definitions = fc.integer({ min: 1, max: 8 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, n) => definition(n))));
const person = fc.record({ plan: fc.constantFrom(...plans), country: fc.constantFrom(...countries), seats: fc.integer({ min: 0, max: 100 }) });

type Step =
  | { kind: 'request'; person: number; company: number | null; anon: boolean }
  | { kind: 'person'; person: number; properties: Record<string, unknown> }
  | { kind: 'group'; company: number; size: number }
  | { kind: 'definitions' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('request' as const), person: fc.integer({ min: 0, max: 5 }), company: fc.option(fc.integer({ min: 0, max: 2 })), anon: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('person' as const), person: fc.integer({ min: 0, max: 5 }), properties: person }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('group' as const), company: fc.integer({ min: 0, max: 2 }), size: fc.integer({ min: 0, max: 1000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'definitions' as const }) },
);

/** The stores: values replaced (never changed in place) on change, as the service's caches do. */
function stores(flags: FlagDefinition[]) {
  const state = {
    definitions: flags,
    persons: new Map<string, Record<string, unknown>>(),
    companies: new Map<string, Record<string, unknown>>(),
    mapping: { 0: 'company' } as Record<number, string>,
  };
  const source = (memo?: AnswerMemo): FlagDataSource => ({
    definitions: () => state.definitions,
    groupTypeMapping: () => state.mapping,
    personProperties: (_p, id) => state.persons.get(id) ?? null,
    groupProperties: (_p, _index, key) => state.companies.get(key) ?? null,
    hashKeyOverride: (_p, id) => (id === 'user-1' ? 'anon-override' : null),
    personCohorts: () => new Set<number>(),
    geoProperties: () => null,
    memo,
  });
  return { state, source };
}

const sync = (result: ReturnType<typeof evaluateRequest>): EvaluateAllResult => {
  if (result instanceof Promise) throw new Error('every read answers at once here');
  return result;
};

describe('AnswerMemo', () => {
  it('answers as the plain evaluation over random flags, persons and changes', () => {
    fc.assert(
      fc.property(definitions, fc.array(person, { minLength: 6, maxLength: 6 }), fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (flags, people, steps, generation) => {
        const { state, source } = stores(flags);
        people.forEach((p, i) => state.persons.set(`user-${i}`, p));
        const memo = new AnswerMemo(generation);
        const [plain, remembered] = [source(), source(memo)];
        for (const s of steps) {
          if (s.kind === 'person') state.persons.set(`user-${s.person}`, { ...s.properties });
          else if (s.kind === 'group') state.companies.set(`co-${s.company}`, { size: s.size });
          else if (s.kind === 'definitions') state.definitions = state.definitions.map((d) => ({ ...d }));
          else {
            const groups: Record<string, string> = s.company === null ? {} : { company: `co-${s.company}` };
            const req = { distinct_id: `user-${s.person}`, groups, ...(s.anon ? { $anon_distinct_id: 'anon-1' } : {}) };
            const expected = sync(evaluateRequest(plain, 1, req, undefined, NOW));
            // Twice: the second answer comes from the memo when it was kept.
            for (let i = 0; i < 2; i++) {
              const got = sync(evaluateRequest(remembered, 1, req, undefined, NOW));
              expect(got.list).toEqual(expected.list);
              expect(got.errorsWhileComputingFlags).toBe(expected.errorsWhileComputingFlags);
              const parts = flagsV2Parts(got, 'req-1');
              expect(Buffer.concat([parts.head, Buffer.from(parts.tail)]).toString()).toBe(flagsV2Body(expected, 'req-1'));
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('remembers an answer and gives it back while nothing it was computed from changed', () => {
    const { state, source } = stores([flag('pro', { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] })]);
    state.persons.set('u', { plan: 'pro' });
    const memo = new AnswerMemo();
    const first = sync(evaluateRequest(source(memo), 1, { distinct_id: 'u' }, undefined, NOW));
    expect(sync(evaluateRequest(source(memo), 1, { distinct_id: 'u' }, undefined, NOW))).toBe(first);
    expect(memo.holds(first)).toBe(true);
    // Another project, the same id: not the same answer.
    expect(sync(evaluateRequest(source(memo), 2, { distinct_id: 'u' }, undefined, NOW))).not.toBe(first);
    state.persons.set('u', { plan: 'free' });
    expect(sync(evaluateRequest(source(memo), 1, { distinct_id: 'u' }, undefined, NOW)).list?.[0].enabled).toBe(false);
  });

  it('never remembers answers that read the clock, cohorts, or what the request sent', () => {
    const dated = flag('recent', { groups: [{ properties: [{ key: 'signed_up', value: '-7d', operator: 'is_date_after', type: 'person' }], rollout_percentage: 100 }] });
    const cohort = flag('in-5', { groups: [{ properties: [{ key: 'id', value: 5, type: 'cohort' }], rollout_percentage: 100 }] });
    const plain = flag('pro', { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] });
    for (const flags of [[dated], [cohort]]) {
      const { state, source } = stores(flags);
      state.persons.set('u', { signed_up: '2024-01-08T00:00:00Z' });
      const memo = new AnswerMemo();
      const before = sync(evaluateRequest(source(memo), 1, { distinct_id: 'u' }, undefined, NOW));
      expect(memo.size).toBe(0);
      if (flags[0] === dated) {
        // A week later the same stored person is no longer recent.
        const later = sync(evaluateRequest(source(memo), 1, { distinct_id: 'u' }, undefined, new Date(NOW.getTime() + 14 * 86_400_000)));
        expect([before.list?.[0].enabled, later.list?.[0].enabled]).toEqual([true, false]);
      }
    }
    const { state, source } = stores([plain]);
    state.persons.set('u', { plan: 'free' });
    const memo = new AnswerMemo();
    const sent = sync(evaluateRequest(source(memo), 1, { distinct_id: 'u', person_properties: { plan: 'pro' } }, undefined, NOW));
    expect(sent.list?.[0].enabled).toBe(true);
    sync(evaluateRequest(source(memo), 1, { distinct_id: 'u', flag_keys_to_evaluate: ['pro'] }, undefined, NOW));
    expect(memo.size).toBe(0);
    expect(sync(evaluateRequest(source(memo), 1, { distinct_id: 'u', person_properties: {} }, undefined, NOW)).list?.[0].enabled).toBe(false);
    expect(memo.size).toBe(1);
    expect(flagsResponse(sent, 2, { requestId: 'r' })).toBeDefined();
  });

  it('never remembers an answer whose reads failed', () => {
    const { source } = stores([flag('pro', { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] })]);
    const memo = new AnswerMemo();
    const failing: FlagDataSource = {
      ...source(memo),
      personProperties: () => {
        throw new Error('store down');
      },
    };
    expect(sync(evaluateRequest(failing, 1, { distinct_id: 'u' }, undefined, NOW)).errorsWhileComputingFlags).toBe(true);
    expect(memo.size).toBe(0);
  });
});
