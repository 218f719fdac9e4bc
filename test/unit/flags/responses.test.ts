import { describe, expect, it } from 'vitest';
import {
  decideResponse,
  evaluateAll,
  flagsResponse,
  parseApiVersion,
  remoteConfig,
  type EvaluateAllResult,
} from '../../../src/flags';
import { ctx, flag } from './helpers';

const flags = [
  flag('on', { groups: [{ properties: [] }], payloads: { true: '{"a":1}' } }, { id: 1, version: 2 }),
  flag('off', { groups: [{ properties: [], rollout_percentage: 0 }], payloads: { true: '"x"' } }, { id: 2 }),
  flag(
    'multi',
    {
      groups: [{ properties: [], variant: 'test' }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
      payloads: { test: '[1,2]' },
    },
    { id: 3, version: undefined },
  ),
];
const result: EvaluateAllResult = evaluateAll(flags, ctx());
const opts = { requestId: '00000000-0000-4000-8000-000000000001' };
const CONFIG = {
  config: { enable_collect_everything: true },
  toolbarParams: {},
  isAuthenticated: false,
  supportedCompression: ['gzip', 'gzip-js', 'lz64'],
  sessionRecording: false,
};

describe('/decide', () => {
  it('v1 (or no v) lists the enabled keys, with config', () => {
    for (const v of [undefined, 1, 0]) {
      const body = decideResponse(result, v, opts);
      expect(body.featureFlags).toEqual(['on', 'multi']);
      expect(body).toMatchObject(CONFIG);
      expect(body).not.toHaveProperty('featureFlagPayloads');
    }
  });

  it('v2 maps enabled keys to their values', () => {
    const body = decideResponse(result, 2, opts);
    expect(body.featureFlags).toEqual({ on: true, multi: 'test' });
    expect(body).toMatchObject(CONFIG);
    expect(body).not.toHaveProperty('errorsWhileComputingFlags');
  });

  it('v3 adds all values, JSON-string payloads and both error fields', () => {
    const body = decideResponse({ ...result, errorsWhileComputingFlags: true }, 3, opts);
    expect(body).toMatchObject(CONFIG);
    expect(body.featureFlags).toEqual({ on: true, off: false, multi: 'test' });
    expect(body.featureFlagPayloads).toEqual({ on: '{"a":1}', multi: '[1,2]' });
    expect(body.errorsWhileComputingFlags).toBe(true);
    expect(body.errorComputingFlags).toBe(true);
    expect(body.requestId).toBe(opts.requestId);
  });

  it('v4 and later use the flags detail format', () => {
    const body = decideResponse(result, 4, opts);
    expect(body).toMatchObject(CONFIG);
    expect(body).not.toHaveProperty('featureFlags');
    expect(Object.keys(body.flags as object)).toEqual(['on', 'off', 'multi']);
    expect(body.errorsWhileComputingFlags).toBe(false);
    expect(body.errorComputingFlags).toBe(false);
    expect(decideResponse(result, 7, opts).flags).toEqual(body.flags);
  });
});

describe('/flags', () => {
  it('v2+ answers the detail format', () => {
    const body = flagsResponse(result, 2, { ...opts, evaluatedAt: 1_700_000_000_000 });
    expect(body).toEqual({
      flags: {
        on: {
          key: 'on',
          enabled: true,
          variant: null,
          reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
          metadata: { id: 1, version: 2, description: null, payload: '{"a":1}' },
        },
        off: {
          key: 'off',
          enabled: false,
          variant: null,
          reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' },
          metadata: { id: 2, version: 3, description: null, payload: null },
        },
        multi: {
          key: 'multi',
          enabled: true,
          variant: 'test',
          reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
          metadata: { id: 3, version: 0, description: null, payload: '[1,2]' },
        },
      },
      errorsWhileComputingFlags: false,
      requestId: opts.requestId,
      evaluatedAt: 1_700_000_000_000,
    });
  });

  it('below v2 answers the v3 shape', () => {
    for (const v of [undefined, 1]) {
      const body = flagsResponse(result, v, opts);
      expect(body).toEqual({
        featureFlags: { on: true, off: false, multi: 'test' },
        featureFlagPayloads: { on: '{"a":1}', multi: '[1,2]' },
        errorsWhileComputingFlags: false,
        errorComputingFlags: false,
        requestId: opts.requestId,
      });
    }
  });

  it('adds the config block only when asked', () => {
    expect(flagsResponse(result, 2, opts)).not.toHaveProperty('config');
    const body = flagsResponse(result, 2, { ...opts, config: true, configOverrides: { sessionRecording: { a: 1 } } });
    expect(body).toMatchObject({ ...CONFIG, sessionRecording: { a: 1 }, hasFeatureFlags: true });
    expect(body.flags).toBeDefined();
  });

  it('survives a JSON round trip unchanged (what the SDK will parse)', () => {
    const body = flagsResponse(result, 2, opts);
    expect(JSON.parse(JSON.stringify(body))).toEqual(body);
  });
});

describe('helpers', () => {
  it('parseApiVersion reads the v query parameter', () => {
    expect(parseApiVersion('3')).toBe(3);
    expect(parseApiVersion(4)).toBe(4);
    expect(parseApiVersion('')).toBeUndefined();
    expect(parseApiVersion('abc')).toBeUndefined();
    expect(parseApiVersion(undefined)).toBeUndefined();
  });

  it('remoteConfig reports whether any flags exist', () => {
    expect(remoteConfig(false)).toMatchObject({ ...CONFIG, hasFeatureFlags: false, siteApps: [] });
  });
});
