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

  it('takes a KurrentDB / EventStoreDB connection string as it is: esdb, esdb+discover, kurrentdb, kurrentdb+discover', () => {
    for (const url of [
      'esdb://127.0.0.1:2113?tls=false',
      'esdb+discover://admin:changeit@cluster.example:2113',
      'kurrentdb://node1:2113,node2:2113,node3:2113?tls=false&nodePreference=leader',
      'KurrentDB+Discover://cluster.example:2113',
    ]) {
      expect(loadConfig({ EVENT_LOG: url }).EVENT_LOG).toEqual({ kind: 'eventstore', url, streamPrefix: '' });
    }
    // ?streamPrefix= is the service's, taken out; the client keeps every other setting.
    expect(parseEventLog('esdb://127.0.0.1:2113?tls=false&streamPrefix=tenant_a-&keepAliveInterval=5000')).toEqual({
      kind: 'eventstore',
      url: 'esdb://127.0.0.1:2113?tls=false&keepAliveInterval=5000',
      streamPrefix: 'tenant_a-',
    });
    expect(parseEventLog('kurrentdb://127.0.0.1:2113?streamPrefix=t1.')).toEqual({ kind: 'eventstore', url: 'kurrentdb://127.0.0.1:2113', streamPrefix: 't1.' });
  });

  it.each([
    ['SQLite', /expected `sqlite`, a postgres:\/\/ URL or an esdb:\/\/ \(kurrentdb:\/\/\) connection string/],
    ['mysql://127.0.0.1/db', /expected `sqlite`, a postgres:\/\/ URL or an esdb:\/\//],
    ['esdb://?tls=false', /the esdb:\/\/ connection string names no host/],
    ['kurrentdb://admin:changeit@/', /the kurrentdb:\/\/ connection string names no host/],
    ['esdb://127.0.0.1:2113?streamPrefix=$ce-', /streamPrefix must be letters, digits/],
    ['esdb://127.0.0.1:2113?streamPrefix=a%20b', /streamPrefix must be/],
    ['esdb://127.0.0.1:2113?streamPrefix=%E0%A4%A', /streamPrefix must be/],
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
    expect(() => loadConfig({ EVENT_LOG: 'esdb://admin:changeit@/' })).toThrow(/esdb:\/\/admin:\*\*\*@\//);
    expect(() => loadConfig({ EVENT_LOG: 'esdb://admin:changeit@/' })).not.toThrow(/changeit/);
    expect(redactedUrl('not a url')).toBe('not a url');
  });
});
