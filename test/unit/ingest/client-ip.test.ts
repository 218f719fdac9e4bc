import { describe, expect, it } from 'vitest';

import { clientIp } from '../../../src/ingest';

describe('clientIp', () => {
  it.each([
    [{ 'x-forwarded-for': '203.0.113.9, 10.0.0.1, 10.0.0.2' }, '203.0.113.9'],
    [{ 'X-Forwarded-For': ' 203.0.113.9 ' }, '203.0.113.9'],
    [{ 'x-forwarded-for': '203.0.113.9:567, 10.0.0.1' }, '203.0.113.9'],
    [{ 'x-forwarded-for': '[2001:db8::1]:567' }, '2001:db8::1'],
    [{ 'x-forwarded-for': '[2001:db8::1]' }, '2001:db8::1'],
    [{ 'x-forwarded-for': '2001:db8::1, 10.0.0.1' }, '2001:db8::1'],
    [{ 'x-forwarded-for': '::1' }, '::1'],
    [{ 'x-forwarded-for': ['198.51.100.7, 10.0.0.1', '10.0.0.3'] }, '198.51.100.7'],
    [{ HTTP_X_FORWARDED_FOR: '198.51.100.8' }, '198.51.100.8'],
    [{ http_x_forwarded_for: '198.51.100.8:80' }, '198.51.100.8'],
  ])('takes the first forwarded entry of %j', (headers, expected) => {
    expect(clientIp(headers, '10.9.9.9')).toBe(expected);
  });

  it.each([
    [{}, '10.9.9.9'],
    [{ 'x-forwarded-for': '' }, '10.9.9.9'],
    [{ 'x-forwarded-for': 'unknown, 1.2.3.4' }, '10.9.9.9'],
    [{ 'x-forwarded-for': undefined }, '10.9.9.9'],
  ])('falls back to the socket address for %j', (headers, expected) => {
    expect(clientIp(headers, '10.9.9.9')).toBe(expected);
  });

  it('normalises the socket address too', () => {
    expect(clientIp({}, '::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(clientIp({}, '::1')).toBe('::1');
    expect(clientIp({}, undefined)).toBeUndefined();
  });
});
