import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flagHash } from '../../../src/flags/hash';
import { HashMemo } from '../../../src/flags/hash-memo';

const reference = (key: string, id: string, variant: boolean) => flagHash(key, id, variant ? 'variant' : '');

describe('HashMemo', () => {
  it('answers as flagHash for any sequence of (key, id, salt), repeats and evictions included', () => {
    const key = fc.oneof(fc.constantFrom('beta', 'rollout-1', 'mv-3', ''), fc.string({ maxLength: 20 }));
    const id = fc.oneof(fc.constantFrom('user-1', 'user-2', '', 'ü-ñ'), fc.string({ maxLength: 30 }), fc.string({ minLength: 195, maxLength: 210 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, id, fc.boolean()), { maxLength: 200 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 6 }), (calls, cells, keys) => {
        const memo = new HashMemo(cells, keys);
        // Each call twice: the second answer comes from the memo when the pair was kept.
        for (const [k, i, v] of calls) {
          expect(memo.hash(k, i, v)).toBe(reference(k, i, v));
          expect(memo.hash(k, i, v)).toBe(reference(k, i, v));
        }
        // A row holds at least 8 hashes and at most 2 per key slot, doubled when it grows.
        expect(memo.size).toBeLessThanOrEqual(2 * Math.ceil(cells / 8) + 2);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the salts apart and grows a person row as new flag keys arrive', () => {
    const memo = new HashMemo();
    const keys = Array.from({ length: 40 }, (_, n) => `flag-${n}`);
    for (const key of keys) expect(memo.hash(key, 'user-7', false)).toBe(flagHash(key, 'user-7'));
    for (const key of keys) expect(memo.hash(key, 'user-7', true)).toBe(flagHash(key, 'user-7', 'variant'));
    expect(flagHash('flag-3', 'user-7')).not.toBe(flagHash('flag-3', 'user-7', 'variant'));
    for (const key of keys) expect(memo.hash(key, 'user-7', false)).toBe(flagHash(key, 'user-7'));
    expect(memo.size).toBe(1);
  });

  it('holds at most two generations of rows and keeps an id asked for in the old one', () => {
    const memo = new HashMemo(3 * 8); // three rows of 8 hashes (one flag key) per generation
    for (const id of ['a', 'b', 'c']) memo.hash('k', id, false);
    expect(memo.size).toBe(3);
    memo.hash('k', 'd', false); // a, b, c become old; d young
    memo.hash('k', 'a', false); // a moves back to the young generation
    expect(memo.size).toBe(4);
    for (const id of ['e', 'f']) memo.hash('k', id, false); // young full (d, a, e): turns old, f young
    expect(memo.size).toBe(4); // b and c were dropped with the oldest generation
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) expect(memo.hash('k', id, false)).toBe(flagHash('k', id));
  });

  it('sizes a row for the slots its id uses, not for every key the memo has seen', () => {
    const memo = new HashMemo(1000);
    // Another project's 400 flags take slots 0..399.
    for (let n = 0; n < 400; n++) memo.hash(`other-${n}`, 'someone', false);
    // Persons asked only about the first of them: 8 hashes a row, so 50 fit in 1000 (not 800 a row).
    for (let i = 0; i < 50; i++) memo.hash('other-0', `user-${i}`, false);
    expect(memo.size).toBe(51);
    for (let i = 0; i < 50; i++) expect(memo.hash('other-0', `user-${i}`, false)).toBe(flagHash('other-0', `user-${i}`));
  });

  it('does not keep ids longer than 200 characters', () => {
    const memo = new HashMemo();
    const long = 'x'.repeat(201);
    expect(memo.hash('k', long, false)).toBe(flagHash('k', long));
    expect(memo.size).toBe(0);
    memo.hash('k', 'x'.repeat(200), false);
    expect(memo.size).toBe(1);
  });
});
