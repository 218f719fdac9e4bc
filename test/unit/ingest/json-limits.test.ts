import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkParsedJson, JsonTooDeepError, MAX_JSON_DEPTH, wellFormedText } from '../../../src/ingest/json-limits';
import { limitJsonBody } from '../../../src/http/json-body';

const parse = (text: string) => {
  const wellFormed = wellFormedText(text);
  return checkParsedJson(JSON.parse(wellFormed), wellFormed);
};
const nested = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);
const isWellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Every string of a parsed value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

describe('JSON limits', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more, in arrays and objects, with or without surrogates`, () => {
    expect(() => parse(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parse(nested(MAX_JSON_DEPTH + 1))).toThrow(JsonTooDeepError);
    expect(() => parse('{"a":'.repeat(5000) + '1' + '}'.repeat(5000))).toThrow(JsonTooDeepError);
    expect(() => parse(`["\\ud800",${nested(MAX_JSON_DEPTH)}]`)).toThrow(JsonTooDeepError);
    expect(() => parse('"deep strings do not count"')).not.toThrow();
  });

  it('replaces lone surrogates in values and keys, keeps pairs, key order and a __proto__ key as a plain property', () => {
    const value = parse('{"a\\ud800":"x\\udc00y","pair":"\\ud83d\\ude00","__proto__":{"p":1},"z":["\\udfff"]}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['a\uFFFD', 'pair', '__proto__', 'z']);
    expect(value['a\uFFFD']).toBe('x\uFFFDy');
    expect(value.pair).toBe('😀');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ p: 1 });
    expect(value.z).toEqual(['\uFFFD']);
  });

  it('any JSON text: every string of the result is well-formed and re-serialises to the same value', () => {
    const units = fc.oneof(fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', 'a', '"', '\\'), fc.string({ maxLength: 3 }));
    const text = fc.array(units, { maxLength: 6 }).map((parts) => parts.join(''));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(text, tie('value'), { maxKeys: 3 })),
    })).value;
    fc.assert(
      fc.property(json, fc.boolean(), (value, raw) => {
        // JSON.stringify escapes lone surrogates (`\ud800`); raw puts them in the text itself.
        let source = JSON.stringify(value);
        // Escaped backslashes are matched first so that `\\ud800` (a backslash, then text) stays text.
        if (raw) source = source.replace(/\\\\|\\u(d[89a-f][0-9a-f]{2})/g, (m, hex?: string) => (hex ? String.fromCharCode(parseInt(hex, 16)) : m));
        const out = parse(source);
        expect(strings(out).every(isWellFormed)).toBe(true);
        expect(JSON.parse(JSON.stringify(out))).toEqual(out);
      }),
      { numRuns: 300 },
    );
  });

  it('management bodies: too deep is a 400 validation error in the spec shape', () => {
    const deep = nested(5000);
    expect(() => limitJsonBody(JSON.parse(deep), deep)).toThrow(
      expect.objectContaining({ status: 400, body: expect.objectContaining({ code: 'invalid_input', type: 'validation_error' }) }),
    );
    expect(limitJsonBody({ k: '\ud800' }, '{"k":"\\ud800"}')).toEqual({ k: '\uFFFD' });
  });
});
