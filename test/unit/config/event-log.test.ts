import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';
import { parseEventLog, redactedUrl } from '../../../src/config/event-log';

describe('EVENT_LOG', () => {
  it('defaults to the SQLite log in DATA_DIR', () => {
    expect(loadConfig({}).EVENT_LOG).toEqual({ kind: 'sqlite' });
    expect(loadConfig({ EVENT_LOG: 'sqlite' }).EVENT_LOG).toEqual({ kind: 'sqlite' });
  });

  it('takes a postgres:// or postgresql:// URL; ?schema= is taken out, the driver keeps every other parameter', () => {
    expect(parseEventLog('postgres://app:pw@127.0.0.1:5432/analytics?schema=tenant_a&sslmode=disable')).toEqual({
      kind: 'postgres',
      url: 'postgres://app:pw@127.0.0.1:5432/analytics?sslmode=disable',
      schema: 'tenant_a',
    });
    expect(parseEventLog('postgresql://127.0.0.1/analytics')).toEqual({ kind: 'postgres', url: 'postgresql://127.0.0.1/analytics', schema: 'event_log' });
  });

  it.each([
    ['SQLite', /expected `sqlite` or a postgres:\/\/ URL/],
    ['mysql://127.0.0.1/db', /expected `sqlite` or a postgres:\/\/ URL/],
    ['postgres:///db', /names no host/],
    ['postgres://127.0.0.1/db?schema=Tenant', /schema must be a lower-case PostgreSQL identifier/],
    ['postgres://127.0.0.1/db?schema=a;drop', /schema must be/],
  ])('refuses %s with one line naming the variable', (value, message) => {
    expect(() => loadConfig({ EVENT_LOG: value })).toThrow(ConfigError);
    expect(() => loadConfig({ EVENT_LOG: value })).toThrow(message);
    expect(() => loadConfig({ EVENT_LOG: value })).toThrow(/^invalid configuration: EVENT_LOG=/);
  });

  it('never shows a URL password in an error', () => {
    expect(() => loadConfig({ EVENT_LOG: 'postgres://app:s3cret@127.0.0.1/db?schema=Bad' })).toThrow(/postgres:\/\/app:\*\*\*@127\.0\.0\.1/);
    expect(() => loadConfig({ EVENT_LOG: 'postgres://app:s3cret@127.0.0.1/db?schema=Bad' })).not.toThrow(/s3cret/);
    expect(redactedUrl('not a url')).toBe('not a url');
  });
});
