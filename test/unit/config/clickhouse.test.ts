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

describe('ANALYTICS=chdb', () => {
  it('keeps the analytics tables in DATA_DIR/analytics-chdb (an absolute path), in CLICKHOUSE_DATABASE', () => {
    expect(analyticsChoice(loadConfig({ ANALYTICS: 'chdb', DATA_DIR: '/srv/data' }))).toEqual({ kind: 'chdb', path: '/srv/data/analytics-chdb', database: 'default' });
    const relative = analyticsChoice(loadConfig({ ANALYTICS: 'chdb', DATA_DIR: 'data', CLICKHOUSE_DATABASE: 'a1' }));
    expect(relative).toEqual({ kind: 'chdb', path: `${process.cwd()}/data/analytics-chdb`, database: 'a1' });
    expect(analyticsChoice(loadConfig({ ANALYTICS: 'embedded' }))).toEqual({ kind: 'embedded' });
  });

  it('refuses another value, a ClickHouse server as well, and shared read models', () => {
    expect(() => loadConfig({ ANALYTICS: 'duckdb' })).toThrow(/ANALYTICS/);
    expect(() => loadConfig({ ANALYTICS: 'chdb', CLICKHOUSE_URL: 'http://ch:8123' })).toThrow(/ANALYTICS=chdb .* CLICKHOUSE_URL .*set one of them/);
    expect(() => loadConfig({ ANALYTICS: 'chdb', EVENT_LOG: LOG, READ_MODELS: LOG })).toThrow(/ANALYTICS.*shared read models/);
  });
});
