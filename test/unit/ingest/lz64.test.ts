import fc from 'fast-check';
import { compressToBase64, decompressFromBase64 } from 'lz-string';
import { describe, expect, it } from 'vitest';

import { Lz64TooLarge, lz64Decompress } from '../../../src/ingest/lz64';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Writes lz-string's bit stream directly: a first literal 'A', then `codes` back-references to
 * the entry being defined, each one character longer than the last. Output grows as codes²/2.
 */
function quadraticBomb(codes: number): string {
  let out = '';
  let acc = 0;
  let filled = 0;
  const write = (value: number, bits: number) => {
    for (let i = 0; i < bits; i += 1) {
      acc = (acc << 1) | ((value >> i) & 1);
      filled += 1;
      if (filled === 6) {
        out += ALPHABET[acc];
        acc = 0;
        filled = 0;
      }
    }
  };
  write(0, 2);
  write(65, 8);
  let dictSize = 4;
  let numBits = 3;
  let enlargeIn = 4;
  for (let i = 0; i < codes; i += 1) {
    write(dictSize, numBits);
    dictSize += 1;
    enlargeIn -= 1;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits += 1;
    }
  }
  write(2, numBits);
  write(0, 12); // flush and pad past the decoder's end-of-input check
  return out;
}

describe('lz64Decompress', () => {
  it('agrees with lz-string on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const compressed = compressToBase64(text);
        expect(lz64Decompress(compressed, Number.MAX_SAFE_INTEGER)).toBe(text);
      }),
      { numRuns: 120 },
    );
  });

  it('agrees with lz-string on corrupted input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...ALPHABET), minLength: 1, maxLength: 60 }), (garbage) => {
        // A first code of 3 (top two bits set) is impossible: the library then decodes
        // garbage around an `undefined` entry, where we report corruption.
        if (ALPHABET.indexOf(garbage[0]) >= 48) {
          expect(lz64Decompress(garbage, Number.MAX_SAFE_INTEGER)).toBeNull();
          return;
        }
        // null and '' are both failures to the caller.
        const ours = lz64Decompress(garbage, Number.MAX_SAFE_INTEGER) || undefined;
        const theirs = decompressFromBase64(garbage) || undefined;
        expect(ours).toBe(theirs);
      }),
      { numRuns: 300 },
    );
  });

  it('builds a working bomb (checked small, against the library)', () => {
    const bomb = quadraticBomb(100);
    const expected = Array.from({ length: 101 }, (_, k) => 'A'.repeat(k + 1)).join('');
    expect(decompressFromBase64(bomb)).toBe(expected);
    expect(lz64Decompress(bomb, Number.MAX_SAFE_INTEGER)).toBe(expected);
  });

  it('stops a 50 kB input that would expand to about 200 M characters', () => {
    const bomb = quadraticBomb(20_000);
    expect(bomb.length).toBeLessThan(80_000);
    const started = performance.now();
    expect(() => lz64Decompress(bomb, 1024 * 1024)).toThrow(Lz64TooLarge);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('returns null for empty input, as the library does', () => {
    expect(lz64Decompress('', 10)).toBeNull();
  });
});
