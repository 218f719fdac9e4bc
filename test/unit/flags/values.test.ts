// The coercions behind the property operators (values.ts), pinned directly: most of them are only
// reached through operators whose tests cannot tell a wrong coercion from a right one.
import { describe, expect, it } from 'vitest';
import { isBooleanLike, isTruthy, toNumber, toText } from '../../../src/flags/values';

describe('toText', () => {
  it('strings as they are, undefined as empty, numbers as JavaScript writes them (not JSON)', () => {
    expect(toText('Ab')).toBe('Ab');
    expect(toText(undefined)).toBe('');
    expect(toText(12.5)).toBe('12.5');
    expect(toText(NaN)).toBe('NaN');
    expect(toText(Infinity)).toBe('Infinity');
    expect(toText(true)).toBe('true');
    expect(toText(10n)).toBe('10');
  });

  it('everything else as its JSON text, or String() when JSON has none', () => {
    expect(toText(null)).toBe('null');
    expect(toText({ a: 1 })).toBe('{"a":1}');
    expect(toText([1, 'x'])).toBe('[1,"x"]');
    expect(toText(Symbol.for('s'))).toBe('Symbol(s)');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(toText(circular)).toBe('[object Object]');
  });
});

describe('toNumber', () => {
  it('reads whole decimal numbers, with sign, fraction and exponent, around spaces', () => {
    expect(toNumber(' 12 ')).toBe(12);
    expect(toNumber('+5')).toBe(5);
    expect(toNumber('-5')).toBe(-5);
    expect(toNumber('12.5')).toBe(12.5);
    expect(toNumber('1.5')).toBe(1.5);
    expect(toNumber('7.')).toBe(7);
    expect(toNumber('.25')).toBe(0.25);
    expect(toNumber('1e+3')).toBe(1000);
    expect(toNumber('1E-2')).toBe(0.01);
    expect(toNumber('1e10')).toBe(1e10);
    expect(toNumber(3)).toBe(3);
  });

  it('refuses partial, empty, non-decimal and non-finite numbers', () => {
    for (const text of ['', '  ', '12abc', 'abc12', '0x10', '0b1', '1e', '.', '1e999', 'Infinity', '1.2.3']) {
      expect(toNumber(text), text).toBeNull();
    }
    expect(toNumber(NaN)).toBeNull();
    expect(toNumber(Infinity)).toBeNull();
    expect(toNumber(true)).toBeNull();
    expect(toNumber(null)).toBeNull();
  });
});

describe('booleans', () => {
  it('isBooleanLike: booleans, "true"/"false" in any case, and non-empty lists of those', () => {
    for (const v of [true, false, 'TRUE', 'False', ['true', false]]) expect(isBooleanLike(v), String(v)).toBe(true);
    for (const v of ['yes', '', 1, 0, null, undefined, [], ['true', 'x'], { true: true }]) {
      expect(isBooleanLike(v), JSON.stringify(v)).toBe(false);
    }
  });

  it('isTruthy: true, "true" in any case, and non-empty lists of only those', () => {
    for (const v of [true, 'TRUE', 'true', ['true', true]]) expect(isTruthy(v), String(v)).toBe(true);
    for (const v of [false, 'false', 'yes', 1, null, undefined, [], ['true', 'false'], [false]]) {
      expect(isTruthy(v), JSON.stringify(v)).toBe(false);
    }
  });
});
