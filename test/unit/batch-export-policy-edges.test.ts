// The batch-export policy's edges (src/exports/policy): address forms, EXPORT_ALLOWED_HOSTS
// entries, the socket lookup, File paths under the export root. Written against surviving mutants
// (docs/mutation.md).
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import {
  DEFAULT_BACKFILL_MAX_RUNS,
  FileRoot,
  NetworkPolicy,
  PathRefusedError,
  TargetRefusedError,
  exportPolicy,
  exportPolicyFromConfig,
  nonPublicKind,
  normalizeHost,
  walk,
} from '../../src/exports/policy';
import { addressBytes, parseCidr } from '../../src/exports/policy/ip-address';
import { tempDir } from '../support/temp-dir';

describe('address bytes', () => {
  it('IPv4, and IPv6 in full, compressed and with an IPv4 tail', () => {
    expect(addressBytes('1.2.3.4')).toEqual([1, 2, 3, 4]);
    const db8 = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0];
    expect(addressBytes('2001:db8::1')).toEqual([...db8, 0, 0, 0, 1]);
    expect(addressBytes('2001:db8:0:0:0:0:0:1')).toEqual([...db8, 0, 0, 0, 1]);
    expect(addressBytes('2001:db8::1.2.3.4')).toEqual([...db8, 1, 2, 3, 4]);
    expect(addressBytes('1::')).toEqual([0, 1, ...Array(14).fill(0)]);
    expect(addressBytes('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(addressBytes('::')).toEqual(Array(16).fill(0));
    expect(addressBytes('fe80::1%eth0')).toEqual([0xfe, 0x80, ...Array(13).fill(0), 1]);
    expect(addressBytes('foo')).toBeNull();
    expect(addressBytes('1.2.3')).toBeNull();
  });

  it('reduces mapped, compatible and NAT64 forms to IPv4, and only those', () => {
    expect(addressBytes('::ffff:1.2.3.4')).toEqual([1, 2, 3, 4]);
    expect(addressBytes('::0.0.0.2')).toEqual([0, 0, 0, 2]);
    expect(addressBytes('64:ff9b::1.2.3.4')).toEqual([1, 2, 3, 4]);
    for (const near of ['::ff00:1.2.3.4', '::ff:1.2.3.4', '164:ff9b::1.2.3.4', '65:ff9b::1.2.3.4', '64:fe9b::1.2.3.4', '64:ff9a::1.2.3.4', '64:ff9b:1::1.2.3.4']) {
      expect(addressBytes(near), near).toHaveLength(16);
    }
  });

  it('reads CIDRs and refuses malformed ones', () => {
    expect(parseCidr(' 10.0.0.0/8 ')).toEqual({ bytes: [10, 0, 0, 0], bits: 8 });
    expect(parseCidr('0.0.0.0/0')).toEqual({ bytes: [0, 0, 0, 0], bits: 0 });
    expect(parseCidr('::1')).toEqual({ bytes: [...Array(15).fill(0), 1], bits: 128 });
    for (const text of ['10.0.0.0/x8', '10.0.0.0/8x', '10.0.0.0/-1', '10.0.0.0/33', 'foo/8', '10.0.0.0/8/1']) {
      expect(parseCidr(text), text).toBeNull();
    }
  });

  it('names every reserved range', () => {
    expect(nonPublicKind('192.0.0.1')).toBe('reserved');
    expect(nonPublicKind('198.18.0.1')).toBe('reserved');
    expect(nonPublicKind('fec0::1')).toBe('site-local');
    expect(nonPublicKind('not-an-address')).toBe('unreadable');
  });
});

describe('EXPORT_ALLOWED_HOSTS entries', () => {
  it('normalizes bracketed addresses, a trailing dot and case, and nothing else', () => {
    expect(normalizeHost(' [::1] ')).toBe('::1');
    expect(normalizeHost('Example.COM.')).toBe('example.com');
    expect(normalizeHost('x[1]')).toBe('x[1]');
    expect(normalizeHost('[1]x')).toBe('[1]x');
  });

  it('skips empty entries, takes one-letter names, refuses names with bad ends or characters', () => {
    expect(() => NetworkPolicy.parse('a, ,,b')).not.toThrow();
    expect(NetworkPolicy.parse('a').refusal('a', '10.0.0.1')).toBeNull();
    for (const bad of ['-bad', 'bad-', 'bad!', 'a b']) {
      expect(() => NetworkPolicy.parse(bad), bad).toThrow(ConfigError);
      expect(() => NetworkPolicy.parse(bad), bad).toThrow(/is not a host name, address or CIDR/);
    }
  });

  it('a refusal names the host and the kind of address', () => {
    let error: unknown;
    try {
      NetworkPolicy.NONE.checkLiteral('127.0.0.1');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TargetRefusedError);
    expect(error).toMatchObject({ code: 'EXPORT_TARGET_REFUSED', name: 'TargetRefusedError', host: '127.0.0.1', kind: 'loopback' });
    expect((error as Error).message).toBe(
      "host '127.0.0.1' resolves to a loopback address, which batch exports may not reach (an operator can allow it with EXPORT_ALLOWED_HOSTS)",
    );
  });
});

describe('resolving and looking up', () => {
  const loopback = NetworkPolicy.parse('127.0.0.0/8,::1');
  const lookup = (policy: NetworkPolicy, host: string, options: unknown) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      policy.lookup(host, options as { all?: boolean }, (err, address, family) => resolve({ err, address, family })),
    );

  it('resolve: an address literal is checked as it is; a name by what it resolves to', async () => {
    await expect(NetworkPolicy.NONE.resolve('[127.0.0.1]')).rejects.toBeInstanceOf(TargetRefusedError);
    expect(await loopback.resolve('[::1]')).toEqual(['::1']);
    expect(await loopback.resolve('localhost')).toContain('127.0.0.1');
  });

  it('lookup: one address unless all are asked for, options as a family number or absent', async () => {
    expect(await lookup(loopback, 'localhost', {})).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    expect(await lookup(loopback, 'localhost', 4)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    expect(await lookup(loopback, 'localhost', undefined)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    const all = await lookup(loopback, 'localhost', { all: true });
    expect(all.err).toBeNull();
    expect(all.address).toContainEqual({ address: '127.0.0.1', family: 4 });
  });

  it('lookup: a refused or unknown name gives the error and no addresses', async () => {
    const refused = await lookup(NetworkPolicy.NONE, 'localhost', { all: true });
    expect(refused.err).toBeInstanceOf(TargetRefusedError);
    expect(refused.address).toEqual([]);
    const unknown = await lookup(loopback, 'no-such-host.invalid', { all: true });
    expect(unknown.err?.code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
    expect(unknown.address).toEqual([]);
  });

  it('checkHost refuses what resolves somewhere refused, and accepts a name that does not resolve', async () => {
    await expect(NetworkPolicy.NONE.checkHost('127.0.0.1')).rejects.toBeInstanceOf(TargetRefusedError);
    await expect(NetworkPolicy.NONE.checkHost('localhost')).rejects.toBeInstanceOf(TargetRefusedError);
    await expect(NetworkPolicy.NONE.checkHost('no-such-host.invalid')).resolves.toBeUndefined();
    await expect(loopback.checkHost('localhost')).resolves.toBeUndefined();
  });
});

describe('export policy from the configuration', () => {
  it('defaults: <DATA_DIR>/exports, no extra hosts, the default backfill bound', () => {
    const policy = exportPolicy({ dataDir: '/d' });
    expect(policy.files.root).toBe('/d/exports');
    expect(policy.network).toBe(NetworkPolicy.NONE);
    expect(policy.backfillMaxRuns).toBe(DEFAULT_BACKFILL_MAX_RUNS);
  });

  it('takes EXPORT_FILE_ROOT, EXPORT_ALLOWED_HOSTS and EXPORT_BACKFILL_MAX_RUNS', () => {
    const config = loadConfig({ DATA_DIR: '/d', EXPORT_FILE_ROOT: '/elsewhere', EXPORT_ALLOWED_HOSTS: '10.0.0.0/8', EXPORT_BACKFILL_MAX_RUNS: '5' });
    const policy = exportPolicyFromConfig(config);
    expect(policy.files.root).toBe('/elsewhere');
    expect(policy.network.refusal('x', '10.1.1.1')).toBeNull();
    expect(policy.network.refusal('x', '192.168.0.1')).toBe('private');
    expect(policy.backfillMaxRuns).toBe(5);
  });
});

describe('File paths under the export root', () => {
  const setup = () => {
    const root = join(tempDir('policy-edges-'), 'exports');
    mkdirSync(join(root, 'inner'), { recursive: true });
    mkdirSync(`${root}-evil`);
    symlinkSync(`${root}-evil`, join(root, 'leak'));
    symlinkSync(join(root, 'missing'), join(root, 'dangling'));
    writeFileSync(join(root, 'file'), 'x');
    return { root, files: new FileRoot(root) };
  };

  it('refusals say why, with their own code and name', () => {
    const files = new FileRoot('/r');
    expect(() => files.segments('a\0b')).toThrow(/must not contain NUL bytes/);
    for (const path of ['../x', 'x/../y', 'x\\..\\y']) expect(() => files.segments(path), path).toThrow(/must not contain '\.\.' segments/);
    try {
      files.segments('..');
    } catch (err) {
      expect(err).toBeInstanceOf(PathRefusedError);
      expect(err).toMatchObject({ code: 'EXPORT_PATH_REFUSED', name: 'PathRefusedError' });
    }
    expect.assertions(6);
  });

  it('a relative path drops empty and "." segments', () => {
    expect(new FileRoot('/r').segments('a//./b/')).toEqual(['a', 'b']);
    expect(new FileRoot('/r').segments('a\\b')).toEqual(['a', 'b']);
  });

  it('check creates nothing; without a root it has nothing to check', async () => {
    const { root, files } = setup();
    await expect(files.check('new/dir')).resolves.toBeUndefined();
    expect(existsSync(join(root, 'new'))).toBe(false);
    const absent = new FileRoot(join(root, 'absent'));
    await expect(absent.check('a')).resolves.toBeUndefined();
    expect(existsSync(join(root, 'absent'))).toBe(false);
  });

  it('walk without create stops at the first missing directory and names the rest below it', async () => {
    const { root } = setup();
    expect(await walk(root, ['inner', 'a', 'b', 'c'], { create: false })).toBe(join(root, 'inner', 'a', 'b', 'c'));
    expect(await walk(root, ['a', 'b'], { create: false })).toBe(join(root, 'a', 'b'));
    await expect(walk(root, [], { create: false, from: `${root}-evil` })).rejects.toThrow(/path is outside the export root$/);
  });

  it('prepare creates the root and the directories, and returns their real paths', async () => {
    const base = tempDir('policy-edges-');
    const files = new FileRoot(join(base, 'x', 'y'));
    const { dir, realRoot } = await files.prepare('a/b');
    expect(realRoot).toBe(join(base, 'x', 'y'));
    expect(dir).toBe(join(base, 'x', 'y', 'a', 'b'));
    expect(existsSync(dir)).toBe(true);
    expect((await files.prepare('a/b')).dir).toBe(dir);
  });

  it('refuses links out of the root, dangling links and files on the way', async () => {
    const { files } = setup();
    await expect(files.check('leak')).rejects.toThrow(/through a symbolic link/);
    await expect(files.prepare('leak/x')).rejects.toThrow(/through a symbolic link/);
    await expect(files.check('dangling/x')).rejects.toThrow(PathRefusedError);
    await expect(files.check('file/x')).rejects.toThrow("'file' on the path is not a directory");
    await expect(files.check('inner/x')).resolves.toBeUndefined();
  });

  it('a file-system error other than a missing directory is not taken for one', async () => {
    const { files } = setup();
    await expect(files.check('x'.repeat(300))).rejects.toMatchObject({ code: 'ENAMETOOLONG' });
  });
});
