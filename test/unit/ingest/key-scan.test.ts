import { describe, expect, it } from 'vitest';
import { KEY_SCAN_WINDOW, keysInJson, keysInJsonInTurns, looksLikeJson } from '../../../src/ingest/key-scan';

const keys = (json: string) => keysInJson(Buffer.from(json));

describe('keysInJson', () => {
  it('finds api_key, token and $token members written plainly, wherever they are', () => {
    expect(keys('{"api_key": "phc_a", "batch": []}')).toEqual(['phc_a']);
    expect(keys('[{"event": "e", "properties": {"token":"phc_b"}}, {"properties": {"$token" :  "phc_c"}}]').sort()).toEqual(['phc_b', 'phc_c']);
    expect(keys('{"batch": [], "api_key": "phc_d"}')).toEqual(['phc_d']);
  });

  it('ignores longer names, non-string values and escaped values', () => {
    expect(keys('{"my_token": "x", "xapi_key": "y", "token": 5, "api_key": "a\\\\u0062"}')).toEqual([]);
    expect(keys('[{},{},{}]')).toEqual([]);
  });

  it('tells JSON text from base64 or form bodies', () => {
    expect(looksLikeJson(Buffer.from('  \n[1]'))).toBe(true);
    expect(looksLikeJson(Buffer.from('\uFEFF{"a":1}'))).toBe(true);
    expect(looksLikeJson(Buffer.from('data=eyJ9'))).toBe(false);
    expect(looksLikeJson(Buffer.from('W3t9XQ=='))).toBe(false);
  });

  it('finds the same keys a window per turn, members across window edges included', async () => {
    const filler = (n: number) => '{},'.repeat(Math.ceil(n / 3)).slice(0, n);
    for (const shift of [-12, -9, -5, -1, 0, 1, 3]) {
      const head = `[{"api_key":"phc_first"},`;
      const member = `{"token":"phc_edge"},`;
      const text = head + filler(KEY_SCAN_WINDOW + shift - head.length) + member + filler(KEY_SCAN_WINDOW) + `{"$token":"phc_last"}]`;
      const bytes = Buffer.from(text);
      expect((await keysInJsonInTurns(bytes)).sort()).toEqual(keysInJson(bytes).sort());
      expect(keysInJson(bytes).sort()).toEqual(['phc_edge', 'phc_first', 'phc_last']);
    }
  });
});
