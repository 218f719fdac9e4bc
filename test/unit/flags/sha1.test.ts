import fc from 'fast-check';
import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha1First60Bits } from '../../../src/flags/sha1';

/** The reference: node:crypto's digest, first 15 hex digits read as PostHog's SDKs read them. */
const reference = (text: string) => {
  const hex = hash('sha1', text, 'hex');
  return parseInt(hex.slice(0, 7), 16) * 4294967296 + parseInt(hex.slice(7, 15), 16);
};

describe('sha1First60Bits', () => {
  it('equals node:crypto at every padding boundary (one, two and three blocks)', () => {
    for (let n = 0; n <= 200; n++) expect(sha1First60Bits('k'.repeat(n)), `length ${n}`).toBe(reference('k'.repeat(n)));
  });

  it('equals node:crypto for any text, multi-byte UTF-8 and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string()), (text) => {
        expect(sha1First60Bits(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes parts as their concatenation, a non-ASCII part anywhere included', () => {
    const part = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
    fc.assert(
      fc.property(part, part, part, part, (a, b, c, d) => {
        expect(sha1First60Bits(a, b, c, d)).toBe(reference(a + b + c + d));
      }),
      { numRuns: 2000 },
    );
    expect(sha1First60Bits('flag', '.', 'é'.repeat(100), 'variant')).toBe(reference(`flag.${'é'.repeat(100)}variant`));
  });

  it('is not thrown off by a long input followed by a short one (shared buffers)', () => {
    const long = 'é'.repeat(5000);
    expect(sha1First60Bits(long)).toBe(reference(long));
    expect(sha1First60Bits('flag.user')).toBe(reference('flag.user'));
  });
});
