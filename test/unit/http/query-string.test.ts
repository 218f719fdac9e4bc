import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQueryString } from '../../../src/http/query-string';

const plain = (q: object) => Object.fromEntries(Object.entries(q));

describe('parseQueryString', () => {
  it('decodes pairs like a browser form: + is a space, keys are decoded too, bare keys are empty', () => {
    expect(plain(parseQueryString('a=1&b=x+y&c%20d=%C3%A9&e&=f&&'))).toEqual({ a: '1', b: 'x y', 'c d': 'é', e: '', '': 'f' });
  });

  it('keeps a repeated parameter as a list, for the guard to refuse or a route to opt into', () => {
    expect(plain(parseQueryString('t=a&t=b&t=c&u=1'))).toEqual({ t: ['a', 'b', 'c'], u: '1' });
  });

  it('notes, never throws on, percent-encoding that is not UTF-8, and leaves such a parameter out', () => {
    for (const bad of ['%E0%A4%A', '%ED%A0%80', '%', '%zz', '%C0%AF', '%FF']) {
      const q = parseQueryString(`ok=1&s=${bad}`);
      expect(plain(q)).toEqual({ ok: '1' });
      expect(Object.getOwnPropertySymbols(q)).toHaveLength(1);
    }
    expect(Object.getOwnPropertySymbols(parseQueryString('a=%C3%A9'))).toHaveLength(0);
  });

  it('has no prototype: __proto__ and constructor are ordinary names', () => {
    const q = parseQueryString('__proto__=x&constructor=y&toString=z');
    expect(Object.getPrototypeOf(q)).toBeNull();
    expect(plain(q)).toEqual(Object.fromEntries([['__proto__', 'x'], ['constructor', 'y'], ['toString', 'z']]));
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('never throws, and round-trips what URLSearchParams encodes', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (raw) => void parseQueryString(raw)), { numRuns: 500 });
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, unit: 'grapheme' }), fc.string({ unit: 'grapheme' })), (dict) => {
        expect(plain(parseQueryString(new URLSearchParams(dict).toString()))).toEqual(dict);
      }),
      { numRuns: 200 },
    );
  });
});
