import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

describe('NATS configuration and the ingest role', () => {
  it('adds ingest to the default roles only when NATS_URL is set', () => {
    expect([...loadConfig({}).ROLES].sort()).toEqual(['api', 'exports', 'projections']);
    const c = loadConfig({ NATS_URL: 'nats://127.0.0.1:4222' });
    expect([...c.ROLES].sort()).toEqual(['api', 'exports', 'ingest', 'projections']);
    expect([c.NATS_REPLICAS, c.NATS_STREAM, c.NATS_SUBJECT_PREFIX, c.NATS_ACK_WAIT_MS]).toEqual([1, 'INGEST', 'ingest', 10_000]);
    expect([...loadConfig({ NATS_URL: 'nats://h:4222', ROLES: 'api,projections' }).ROLES].sort()).toEqual(['api', 'projections']);
  });

  it('refuses the ingest role without NATS_URL, and bad NATS settings, naming the variable', () => {
    expect(() => loadConfig({ ROLES: 'ingest,projections' })).toThrow(/ROLES=.*set NATS_URL/);
    expect(() => loadConfig({ NATS_URL: 'nats://h:4222', NATS_REPLICAS: '0' })).toThrow(/NATS_REPLICAS/);
    expect(() => loadConfig({ NATS_URL: 'nats://h:4222', NATS_STREAM: 'a.b' })).toThrow(/NATS_STREAM/);
    expect(() => loadConfig({ NATS_URL: 'nats://h:4222', NATS_SUBJECT_PREFIX: 'a.*' })).toThrow(/NATS_SUBJECT_PREFIX/);
  });

  it('never shows the password of NATS_URL in an error', () => {
    expect(() => loadConfig({ NATS_URL: 'nats://user:secret@h:4222', NATS_REPLICAS: 'x', ROLES: 'nope' })).toThrow(/^(?!.*secret)/s);
  });
});
