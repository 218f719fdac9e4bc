import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config';
import { NetworkPolicy, TargetRefusedError, nonPublicKind } from '../../src/exports/policy';

describe('address ranges a destination may not reach by default', () => {
  const cases: [string, string | null][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private (CGNAT)'],
    ['fc00::1', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['::10.0.0.1', 'private'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['fe80::1%eth0', 'link-local'],
    ['8.8.8.8', null],
    ['172.32.0.1', null],
    ['100.128.0.1', null],
    ['2606:4700::1111', null],
    ['::ffff:8.8.8.8', null],
  ];
  for (const [address, kind] of cases) {
    it(`${address} is ${kind ?? 'public'}`, () => expect(nonPublicKind(address)).toBe(kind));
  }
});

describe('EXPORT_ALLOWED_HOSTS', () => {
  it('allows listed names (any address) and CIDRs (those addresses only)', () => {
    const policy = NetworkPolicy.parse(' db.internal , 10.1.0.0/16, 127.0.0.1 ,fd00::/8');
    expect(policy.refusal('DB.Internal.', '10.9.9.9')).toBeNull();
    expect(policy.refusal('other', '10.1.2.3')).toBeNull();
    expect(policy.refusal('other', '10.2.0.1')).toBe('private');
    expect(policy.refusal('other', '127.0.0.1')).toBeNull();
    expect(policy.refusal('other', '127.0.0.2')).toBe('loopback');
    expect(policy.refusal('other', '::ffff:127.0.0.1')).toBeNull();
    expect(policy.refusal('other', 'fd12::1')).toBeNull();
    expect(policy.refusal('other', '8.8.8.8')).toBeNull();
  });

  it('refuses unreadable entries at start-up with one line naming the variable', () => {
    expect(() => NetworkPolicy.parse('10.0.0.0/33')).toThrow(ConfigError);
    expect(() => NetworkPolicy.parse('http://x')).toThrow(/EXPORT_ALLOWED_HOSTS/);
    expect(() => NetworkPolicy.parse('1.2.3.4/8/1')).toThrow(ConfigError);
  });

  it('checks every address a name resolves to, on the lookup sockets use', async () => {
    const none = NetworkPolicy.NONE;
    await expect(none.resolve('localhost')).rejects.toBeInstanceOf(TargetRefusedError);
    const refusedByLookup = await new Promise<Error | null>((resolve) => none.lookup('localhost', { all: true }, (err) => resolve(err)));
    expect(refusedByLookup).toBeInstanceOf(TargetRefusedError);
    // With both loopback ranges allowed, the lookup hands the socket the answers it checked.
    const loopback = NetworkPolicy.parse('127.0.0.0/8,::1');
    const answers = await new Promise<unknown>((resolve, reject) =>
      loopback.lookup('localhost', { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
    );
    expect((answers as { address: string }[]).length).toBeGreaterThan(0);
    expect(() => none.checkLiteral('[::1]')).toThrow(TargetRefusedError);
    expect(() => none.checkLiteral('example.com')).not.toThrow();
  });
});
