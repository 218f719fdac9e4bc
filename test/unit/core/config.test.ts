import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';
import { parsePage } from '../../../src/http/pagination';

describe('config', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({ PORT: 8000, HOST: '127.0.0.1', DATA_DIR: './data', LOG_LEVEL: 'info', DURABILITY: 'normal' });
  });
  it('names the bad variable in one line', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^invalid configuration: PORT="eighty"/);
    expect(() => loadConfig({ DURABILITY: 'maybe' })).toThrow(/DURABILITY/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});

describe('pagination parameters', () => {
  it('defaults, bounds and refusals', () => {
    expect(parsePage({})).toEqual({ limit: 100, offset: 0 });
    expect(parsePage({ limit: '1000', offset: '5' })).toEqual({ limit: 1000, offset: 5 });
    for (const bad of [{ limit: '0' }, { limit: '1001' }, { limit: '-1' }, { limit: 'x' }, { offset: '-3' }, { offset: '1.5' }])
      expect(() => parsePage(bad)).toThrow();
  });
});
