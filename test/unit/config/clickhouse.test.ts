import { describe, expect, it } from 'vitest';
import { analyticsChoice, ConfigError, loadConfig } from '../../../src/config';

const LOG = 'postgres://127.0.0.1:5432/analytics?schema=log';

describe('CLICKHOUSE_URL and CLICKHOUSE_DATABASE', () => {
  it('unset (or empty): the embedded analytics store', () => {
    expect(analyticsChoice(loadConfig({}))).toEqual({ kind: 'embedded' });
    expect(analyticsChoice(loadConfig({ CLICKHOUSE_URL: '' }))).toEqual({ kind: 'embedded' });
  });

  it('set: a ClickHouse server, database `default` unless named', () => {
    expect(analyticsChoice(loadConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:8123' }))).toEqual({ kind: 'clickhouse', url: 'http://127.0.0.1:8123', database: 'default' });
    expect(analyticsChoice(loadConfig({ CLICKHOUSE_URL: 'https://u:p@ch:8443', CLICKHOUSE_DATABASE: 'analytics_1' }))).toEqual({ kind: 'clickhouse', url: 'https://u:p@ch:8443', database: 'analytics_1' });
  });

  it('refuses a URL that is not http(s), a database name that is not an identifier, and shared read models, without showing a password', () => {
    expect(() => loadConfig({ CLICKHOUSE_URL: 'tcp://u:hunter2@ch:9000' })).toThrow(ConfigError);
    expect(() => loadConfig({ CLICKHOUSE_URL: 'not a url' })).toThrow(/CLICKHOUSE_URL/);
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_DATABASE: 'x; DROP' })).toThrow(/CLICKHOUSE_DATABASE/);
    expect(() => loadConfig({ EVENT_LOG: LOG, READ_MODELS: LOG, CLICKHOUSE_URL: 'http://ch:8123' })).toThrow(/CLICKHOUSE_URL.*shared read models/);
    try {
      loadConfig({ CLICKHOUSE_URL: 'tcp://u:hunter2@ch:9000' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});
