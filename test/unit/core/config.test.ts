import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config';
import { z } from 'zod';
import { pageQuery } from '../../../src/http/schema/common';
import { validatorCompiler } from '../../../src/http/schema/provider';

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
  const validate = validatorCompiler({ schema: z.object(pageQuery()), httpPart: 'querystring', method: 'GET', url: '/' }) as (
    data: unknown,
  ) => { value?: unknown; error?: { status: number; body: unknown } };
  it('defaults, bounds and refusals, each a 400 naming the parameter', () => {
    expect(validate({}).value).toEqual({ limit: 100, offset: 0 });
    expect(validate({ limit: '1000', offset: '5' }).value).toEqual({ limit: 1000, offset: 5 });
    for (const [bad, attr, detail] of [
      [{ limit: '0' }, 'limit', "'limit' must be at least 1."],
      [{ limit: '1001' }, 'limit', "'limit' must be at most 1000."],
      [{ limit: '-1' }, 'limit', "A valid non-negative integer is required for 'limit'."],
      [{ limit: 'x' }, 'limit', "A valid non-negative integer is required for 'limit'."],
      [{ offset: '-3' }, 'offset', "A valid non-negative integer is required for 'offset'."],
      [{ offset: '1.5' }, 'offset', "A valid non-negative integer is required for 'offset'."],
      [{ limit: '99999999999999999' }, 'limit', "A valid non-negative integer is required for 'limit'."],
    ] as const)
      expect(validate(bad).error, JSON.stringify(bad)).toMatchObject({ status: 400, body: { type: 'validation_error', code: 'invalid_input', attr, detail } });
  });
});
