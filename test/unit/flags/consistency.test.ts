import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFlag, flagHash, pickVariant, type EvaluationContext, type FlagDefinition } from '../../../src/flags';
import fixture from './fixtures/consistency.json';

// The published SDK vectors: if these drift, our users land in different buckets than PostHog's.
const ctxFor = (distinctId: string): EvaluationContext => ({
  distinctId,
  personProperties: {},
  groups: {},
  groupProperties: {},
  groupTypeMapping: {},
  now: new Date('2024-01-01T00:00:00Z'),
});

describe('PostHog SDK consistency vectors', () => {
  it('simple-flag (45%) matches all 1000 published results, 446 of them true', () => {
    const flag = fixture.simpleFlag.flag as FlagDefinition;
    const actual = fixture.simpleFlag.results.map((_, i) => evaluateFlag(flag, ctxFor(`distinct_id_${i}`)).value);
    expect(actual).toEqual(fixture.simpleFlag.results);
    expect(actual.filter((v) => v === true)).toHaveLength(446);
  });

  it('multivariate-flag (55%, five variants) matches all 1000 published results', () => {
    const flag = fixture.multivariateFlag.flag as FlagDefinition;
    const actual = fixture.multivariateFlag.results.map(
      (_, i) => evaluateFlag(flag, ctxFor(`distinct_id_${i}`)).value,
    );
    expect(actual).toEqual(fixture.multivariateFlag.results);
  });
});

describe('flagHash', () => {
  it('is the first 15 hex digits of sha1("key.id" + salt) over 2^60', () => {
    const hex = createHash('sha1').update('simple-flag.distinct_id_0').digest('hex');
    expect(flagHash('simple-flag', 'distinct_id_0')).toBe(parseInt(hex.slice(0, 15), 16) / 2 ** 60);
    const salted = createHash('sha1').update('simple-flag.distinct_id_0variant').digest('hex');
    expect(flagHash('simple-flag', 'distinct_id_0', 'variant')).toBe(parseInt(salted.slice(0, 15), 16) / 2 ** 60);
  });
});

describe('hash properties', () => {
  it('stays within [0, 1] and is deterministic', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (key, id, salt) => {
        const h = flagHash(key, id, salt);
        return h >= 0 && h <= 1 && h === flagHash(key, id, salt);
      }),
      { numRuns: 200 },
    );
  });

  it('widening a rollout never drops anyone already in it', () => {
    const rolloutFlag = (pct: number): FlagDefinition => ({
      id: 1,
      key: 'widening',
      active: true,
      ensure_experience_continuity: false,
      filters: { groups: [{ properties: [], rollout_percentage: pct }] },
    });
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), (id, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const inLo = evaluateFlag(rolloutFlag(lo), ctxFor(id)).enabled;
        return !inLo || evaluateFlag(rolloutFlag(hi), ctxFor(id)).enabled;
      }),
      { numRuns: 200 },
    );
  });

  it('variants covering 100% always yield one of them', () => {
    const variants = [
      { key: 'a', rollout_percentage: 33 },
      { key: 'b', rollout_percentage: 33 },
      { key: 'c', rollout_percentage: 34 },
    ];
    fc.assert(
      fc.property(fc.string(), fc.string(), (key, id) => ['a', 'b', 'c'].includes(pickVariant(key, id, variants) ?? '')),
      { numRuns: 200 },
    );
  });
});
