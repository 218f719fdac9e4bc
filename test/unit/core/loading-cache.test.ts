import { describe, expect, it } from 'vitest';
import { LoadingCache } from '../../../src/runtime/loading-cache';

describe('LoadingCache', () => {
  it('answers a cached key synchronously and loads a missing one once for concurrent callers', async () => {
    let loads = 0;
    const cache = new LoadingCache(async (k: string) => `${k}:${++loads}`);
    const [a, b] = [cache.get('x'), cache.get('x')];
    expect(a).toBeInstanceOf(Promise);
    expect(await a).toBe('x:1');
    expect(await b).toBe('x:1');
    expect(cache.get('x')).toBe('x:1');
    expect(loads).toBe(1);
  });

  it('does not keep a load that was in flight when the key was invalidated (no stale read after a change)', async () => {
    let value = 'old';
    let release = () => {};
    const cache = new LoadingCache(async () => {
      const seen = value;
      await new Promise<void>((r) => (release = r));
      return seen;
    });
    const stale = cache.get('k');
    value = 'new';
    cache.invalidate('k');
    release();
    expect(await stale).toBe('old');
    const fresh = cache.get('k');
    expect(fresh).toBeInstanceOf(Promise);
    release();
    expect(await fresh).toBe('new');
    expect(cache.get('k')).toBe('new');
  });

  it('does not cache what `keep` refuses, nor a failed load', async () => {
    let fail = true;
    const cache = new LoadingCache(
      async (k: string) => {
        if (fail) throw new Error('down');
        return k === 'unknown' ? undefined : 1;
      },
      (v) => v !== undefined,
    );
    await expect(cache.get('a')).rejects.toThrow('down');
    fail = false;
    expect(await cache.get('a')).toBe(1);
    expect(await cache.get('unknown')).toBeUndefined();
    expect(cache.get('unknown')).toBeInstanceOf(Promise);
  });
});
