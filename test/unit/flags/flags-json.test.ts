import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateAll, flagsResponse } from '../../../src/flags';
import { flagsV2Body } from '../../../src/flags/serving';
import type { FlagDefinition } from '../../../src/flags';

const flags: FlagDefinition[] = [
  { id: 1, key: 'rollout', active: true, ensure_experience_continuity: false, version: 3, filters: { groups: [{ properties: [], rollout_percentage: 40 }] } },
  {
    id: 2,
    key: 'multi "quoted"',
    active: true,
    ensure_experience_continuity: false,
    version: 1,
    filters: {
      groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      payloads: { a: '{"x":1}', b: '"text"' },
    },
  },
  { id: 3, key: 'off', active: false, ensure_experience_continuity: false, version: 2, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
];

describe('pre-serialised /flags v2 body', () => {
  it('is byte for byte the JSON of flagsResponse v2, for any user and properties', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('pro', 'free', undefined), fc.boolean(), (distinctId, plan, errors) => {
        const result = evaluateAll(flags, {
          distinctId,
          personProperties: plan ? { plan } : {},
          groups: {},
          groupProperties: {},
          groupTypeMapping: {},
          now: new Date('2026-01-01T00:00:00Z'),
        });
        const withErrors = { ...result, errorsWhileComputingFlags: errors };
        const text = flagsV2Body(withErrors, 'req-1');
        expect(text).toBe(JSON.stringify(flagsResponse(withErrors, 2, { requestId: 'req-1' })));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every answer intact while later ones are built', () => {
    const answers: { body: string; expected: string }[] = [];
    for (let i = 0; i < 2000; i++) {
      const result = evaluateAll(flags, {
        distinctId: `user-${i}`,
        personProperties: { plan: i % 2 ? 'pro' : 'free' },
        groups: {},
        groupProperties: {},
        groupTypeMapping: {},
        now: new Date('2026-01-01T00:00:00Z'),
      });
      const requestId = `req-${i}-é`;
      answers.push({ body: flagsV2Body(result, requestId), expected: JSON.stringify(flagsResponse(result, 2, { requestId })) });
    }
    for (const { body, expected } of answers) expect(body).toBe(expected);
  });
});
