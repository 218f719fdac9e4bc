import { describe, expect, it } from 'vitest';
import { keysInJson, looksLikeJson } from '../../../src/ingest/key-scan';

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
});
