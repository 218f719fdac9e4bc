import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/exports/secrets';

const box = new SecretBox(randomBytes(32));

describe('sealed destination secrets', () => {
  it('seals only the secret fields of the type, and opens them back', () => {
    const config = { host: 'db', user: 'alice', password: 'p@ss', port: 5432 };
    const sealed = box.sealConfig('Postgres', config);
    expect(sealed.host).toBe('db');
    expect(sealed.port).toBe(5432);
    expect(sealed.user).toMatch(/^enc:v1:/);
    expect(sealed.password).not.toContain('p@ss');
    expect(box.openConfig('Postgres', sealed)).toEqual(config);
    // Sealing twice changes nothing; every seal uses a fresh nonce.
    expect(box.sealConfig('Postgres', sealed)).toEqual(sealed);
    expect(box.seal('x')).not.toBe(box.seal('x'));
  });

  it('refuses a tampered value or another key', () => {
    const sealed = box.seal('secret');
    const bytes = Buffer.from(sealed.slice('enc:v1:'.length), 'base64');
    bytes[bytes.length - 1] ^= 1;
    expect(() => box.open(`enc:v1:${bytes.toString('base64')}`)).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
