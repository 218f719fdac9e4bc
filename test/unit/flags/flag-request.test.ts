import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlagRequest, parseFlagRequest } from '../../../src/flags/serving';

// The hand check that skips the zod parse for bodies needing no conversion, against the zod parse
// itself: the same outcome and the same data for any body, well-formed or not.

const anyValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
const field = <T>(typical: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: typical }, { weight: 1, arbitrary: anyValue });
const body = fc.record(
  {
    token: field(fc.string()),
    api_key: field(fc.string()),
    $token: field(fc.string()),
    distinct_id: field(fc.oneof(fc.string(), fc.integer())),
    groups: field(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 })),
    person_properties: field(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 })),
    group_properties: field(fc.dictionary(fc.string(), fc.oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }), anyValue), { maxKeys: 2 })),
    $anon_distinct_id: field(fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
    geoip_disable: field(fc.oneof(fc.boolean(), fc.constant(null))),
    disable_flags: field(fc.oneof(fc.boolean(), fc.constant(null))),
    flag_keys_to_evaluate: field(fc.oneof(fc.array(fc.string(), { maxLength: 3 }), fc.constant(null))),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe('parseFlagRequest', () => {
  it('answers as FlagRequest.safeParse for any body', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: body }, { weight: 1, arbitrary: anyValue }), (payload) => {
        const reference = FlagRequest.safeParse(payload);
        const fast = parseFlagRequest(payload);
        expect(fast.success).toBe(reference.success);
        if (reference.success) expect(fast.data).toEqual(reference.data);
        else expect(fast.error?.issues).toEqual(reference.error.issues);
      }),
      { numRuns: 2000 },
    );
  });

  it('hands back a body that needs no conversion as it is, without copying it', () => {
    const payload = JSON.parse('{"token":"phc_x","distinct_id":"user-1","groups":{"company":"co-1"},"person_properties":{},"group_properties":{}}') as unknown;
    expect(parseFlagRequest(payload).data).toBe(payload);
    expect(parseFlagRequest({ token: 'phc_x', distinct_id: 12 }).data?.distinct_id).toBe('12');
  });
});
