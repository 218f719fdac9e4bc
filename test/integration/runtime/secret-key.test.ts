import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSecretKey, resolveSecretKey } from '../../../src/app/secret-key';
import { ConfigError } from '../../../src/config';
import { SecretBox } from '../../../src/exports/secrets';
import { npmStartArgs, repoRoot } from '../../support/child';
import { tempDir } from '../../support/temp-dir';

const KEY = Buffer.alloc(32, 9).toString('base64');

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, npmStartArgs(), {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', PRINT_CREDENTIALS: 'false', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('SECRET_KEY: the key sealing destination secrets', () => {
  it('given a shared event log without SECRET_KEY, the start is refused in one line (exit 2), before anything connects', () => {
    // Nothing listens on port 1: the refusal must come before any connection attempt.
    const r = start({ DATA_DIR: tempDir('secret-shared-'), EVENT_LOG: 'postgres://ops@127.0.0.1:1/test' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/SECRET_KEY is required with a shared event log/);
  });

  it('given an invalid SECRET_KEY, the start is refused without echoing it', () => {
    const value = 'not-a-key-but-a-secret-passphrase';
    const r = start({ DATA_DIR: tempDir('secret-bad-'), SECRET_KEY: value });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/SECRET_KEY is neither 32 bytes in base64 nor the path of a file/);
    expect(r.stderr + r.stdout).not.toContain(value);
  });

  it('is read from the variable or from a file it names; both open what the other sealed', () => {
    const dir = tempDir('secret-file-');
    const file = join(dir, 'secret.key');
    writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
    const fromValue = resolveSecretKey({ configured: KEY, shared: true })!;
    const fromFile = resolveSecretKey({ configured: file, shared: true })!;
    expect(fromFile.equals(fromValue)).toBe(true);
    const sealed = new SecretBox(fromValue).seal('hunter2');
    expect(new SecretBox(fromFile).open(sealed)).toBe('hunter2');
    // Another process's own data-directory key cannot open it: why a shared log requires SECRET_KEY.
    expect(resolveSecretKey({ shared: false })).toBeUndefined();
    const own = loadSecretKey(tempDir('secret-own-'));
    expect(() => new SecretBox(own).open(sealed)).toThrow();
  });

  it('refuses a file that does not hold a key', () => {
    const file = join(tempDir('secret-junk-'), 'junk');
    writeFileSync(file, 'hello\n');
    expect(() => resolveSecretKey({ configured: file, shared: false })).toThrow(ConfigError);
  });
});
