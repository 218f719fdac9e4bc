import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';

const LOG = 'postgres://127.0.0.1:5432/analytics?schema=log';

describe('READ_MODELS', () => {
  it('defaults to SQLite files in DATA_DIR', () => {
    expect(loadConfig({}).READ_MODELS).toEqual({ kind: 'sqlite' });
  });

  it('takes a postgres:// URL; ?schema= is the service\'s (default read_models), the rest the driver\'s', () => {
    expect(loadConfig({ EVENT_LOG: LOG, READ_MODELS: 'postgres://app:pw@127.0.0.1:5432/analytics?schema=tenant_rm&sslmode=disable' }).READ_MODELS).toEqual({
      kind: 'postgres',
      url: 'postgres://app:pw@127.0.0.1:5432/analytics?sslmode=disable',
      schema: 'tenant_rm',
    });
    expect(loadConfig({ EVENT_LOG: LOG, READ_MODELS: 'postgresql://127.0.0.1/analytics' }).READ_MODELS).toEqual({ kind: 'postgres', url: 'postgresql://127.0.0.1/analytics', schema: 'read_models' });
  });

  it('refuses anything else in one line that never shows a password', () => {
    expect(() => loadConfig({ READ_MODELS: 'mysql://root:hunter2@db/x' })).toThrow(ConfigError);
    expect(() => loadConfig({ READ_MODELS: 'mysql://root:hunter2@db/x' })).toThrow(/READ_MODELS=.*expected `sqlite` or a postgres:\/\/ URL/);
    expect(() => loadConfig({ EVENT_LOG: LOG, READ_MODELS: 'postgres://u:hunter2@db/x?schema=Bad-Name' })).toThrow(/schema must be a lower-case/);
    try {
      loadConfig({ EVENT_LOG: LOG, READ_MODELS: 'postgres://u:hunter2@db/x?schema=Bad-Name' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('shared read models need a shared log: every process must fold the same one', () => {
    expect(() => loadConfig({ READ_MODELS: 'postgres://127.0.0.1/analytics' })).toThrow(/READ_MODELS=.*shared read models need a shared EVENT_LOG/);
  });
});

describe('ROLES', () => {
  it('defaults to all three', () => {
    expect([...loadConfig({}).ROLES].sort()).toEqual(['api', 'exports', 'projections']);
  });

  it('takes a comma-separated subset, spaces allowed', () => {
    const shared = { EVENT_LOG: LOG, READ_MODELS: 'postgres://127.0.0.1/analytics' };
    expect([...loadConfig({ ...shared, ROLES: 'api' }).ROLES]).toEqual(['api']);
    expect([...loadConfig({ ...shared, ROLES: 'projections, exports' }).ROLES].sort()).toEqual(['exports', 'projections']);
  });

  it('refuses an unknown role or an empty list', () => {
    expect(() => loadConfig({ ROLES: 'api,worker' })).toThrow(/ROLES="api,worker": unknown role "worker"/);
    expect(() => loadConfig({ ROLES: ',' })).toThrow(/ROLES=",": expected a comma-separated subset/);
  });

  it('a process that folds nothing needs read models another process folds', () => {
    expect(() => loadConfig({ ROLES: 'api' })).toThrow(/ROLES="api": without `projections`.*READ_MODELS=postgres/);
    expect(() => loadConfig({ EVENT_LOG: LOG, ROLES: 'api,exports' })).toThrow(ConfigError);
    // With SQLite read models, leaving out the exports is fine (as EXPORTS_ENABLED=false).
    expect([...loadConfig({ ROLES: 'api,projections' }).ROLES].sort()).toEqual(['api', 'projections']);
  });
});
