import { describe, expect, it } from 'vitest';
import { scrubSecrets } from '../../src/exports/destinations';

const pg = (password: string, user = 'export_user') => ({ host: 'db', user, password, database: 'x' });

describe('secret masking in export messages', () => {
  const password = 'p@ss w/"rd+ü';
  const forms: [string, string][] = [
    ['as is', password],
    ['JSON-escaped', JSON.stringify(password).slice(1, -1)],
    ['URL-encoded', encodeURIComponent(password)],
    ['form-encoded (+ for space)', new URLSearchParams({ v: password }).toString().slice(2)],
    ['base64', Buffer.from(password).toString('base64')],
    ['base64 without padding', Buffer.from(password).toString('base64').replace(/=+$/, '')],
    ['base64url', Buffer.from(password).toString('base64url')],
    ['Basic user:password', Buffer.from(`export_user:${password}`).toString('base64')],
  ];
  for (const [name, form] of forms) {
    it(`masks the ${name} form`, () => {
      const out = scrubSecrets(`connect failed: [${form}] end`, 'Postgres', pg(password));
      expect(out).toBe('connect failed: [***] end');
    });
  }

  it('masks the user name too (it is a secret field of Postgres)', () => {
    expect(scrubSecrets('role "export_user" does not exist', 'Postgres', pg('long-password'))).toBe('role "***" does not exist');
  });

  it('masks short values where they stand as a whole token, not inside words', () => {
    expect(scrubSecrets('password ab was rejected; table abc', 'Postgres', pg('ab'))).toBe('password *** was rejected; table abc');
    expect(scrubSecrets('token=x&next=1', 'HTTP', { url: 'http://h', token: 'x' })).toBe('token=***&next=1');
    expect(scrubSecrets('"k":"Q"', 'HTTP', { url: 'http://h', token: 'Q' })).toBe('"k":"***"');
  });

  it('masks the longest form first, so no fragment of an encoding is left around a shorter one', () => {
    const token = 'abcd';
    const out = scrubSecrets(`b64=${Buffer.from(token).toString('base64')} raw=${token}`, 'HTTP', { token });
    expect(out).toBe('b64=*** raw=***');
  });

  it('leaves messages alone when the secret is empty', () => {
    expect(scrubSecrets('trust auth, no password', 'Postgres', pg(''))).toBe('trust auth, no password');
  });
});
