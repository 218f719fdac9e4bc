import { describe, expect, it } from 'vitest';
import { lookupTarget } from '../../../src/geoip';

describe('lookupTarget', () => {
  it.each([
    ['81.2.69.142', 4, '81.2.69.142'],
    ['8.8.8.8', 4, '8.8.8.8'],
    [' 8.8.8.8 ', 4, '8.8.8.8'],
    ['2001:4860:4860::8888', 6, '2001:4860:4860::8888'],
    ['2a00:1450:4001:80b::200e', 6, '2a00:1450:4001:80b::200e'],
  ])('looks public %s up in the IPv%s data', (ip, family, address) => {
    expect(lookupTarget(ip)).toEqual({ family, address });
  });

  it.each([
    ['::ffff:81.2.69.142', '81.2.69.142'],
    ['::FFFF:8.8.8.8', '8.8.8.8'],
    ['::ffff:5102:458e', '81.2.69.142'],
    ['0:0:0:0:0:ffff:808:808', '8.8.8.8'],
  ])('answers IPv4-mapped %s from the IPv4 data', (ip, address) => {
    expect(lookupTarget(ip)).toEqual({ family: 4, address });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:127.0.0.1', 'mapped loopback'],
    ['::ffff:192.168.1.1', 'mapped private'],
    ['::ffff:a00:1', 'mapped private in hex'],
  ])('skips %s (%s)', (ip) => {
    expect(lookupTarget(ip)).toBeNull();
  });

  it('keeps the neighbours of non-public blocks', () => {
    expect(lookupTarget('172.15.255.255')).not.toBeNull();
    expect(lookupTarget('172.32.0.0')).not.toBeNull();
    expect(lookupTarget('100.63.255.255')).not.toBeNull();
    expect(lookupTarget('100.128.0.0')).not.toBeNull();
    expect(lookupTarget('fbff::1')).not.toBeNull();
  });

  it.each(['', 'garbage', 'unknown', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1::2::3', '1.2.3.4:80', '[::1]', '::ffff:999.1.1.1'])(
    'rejects malformed %j',
    (ip) => {
      expect(lookupTarget(ip)).toBeNull();
    },
  );
});
