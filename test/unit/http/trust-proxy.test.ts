import { describe, expect, it } from 'vitest';
import { trustProxySetting } from '../../../src/http/trust-proxy';

describe('TRUST_PROXY', () => {
  it('false and empty trust no one; true trusts every hop', () => {
    for (const off of ['false', 'FALSE', '', '  ']) expect(trustProxySetting(off)).toBe(false);
    expect(trustProxySetting('true')).toBe(true);
    expect(trustProxySetting(' True ')).toBe(true);
  });

  it('a list of addresses, CIDRs and range names', () => {
    expect(trustProxySetting('10.0.0.1, 192.168.0.0/16,fd00::/8 ,::1,loopback,10.0.0.0/255.0.0.0')).toEqual([
      '10.0.0.1',
      '192.168.0.0/16',
      'fd00::/8',
      '::1',
      'loopback',
      '10.0.0.0/255.0.0.0',
    ]);
  });

  it('a bad entry stops start-up naming it', () => {
    for (const bad of ['proxy.example', '10.0.0.0/33', '::1/129', '1.2.3', 'yes'])
      expect(() => trustProxySetting(`10.0.0.1,${bad}`)).toThrow(`TRUST_PROXY: '${bad}'`);
  });
});
