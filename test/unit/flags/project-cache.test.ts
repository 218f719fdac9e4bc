import { describe, expect, it } from 'vitest';
import { ProjectCache } from '../../../src/flags/serving';

/** A load per call that waits until released, so a test decides when each answer arrives. */
function gatedLoads<V>(answer: (projectId: number, key: string) => V) {
  const releases: (() => void)[] = [];
  let loads = 0;
  const load = async (projectId: number, key: string) => {
    loads++;
    const value = answer(projectId, key);
    await new Promise<void>((resolve) => releases.push(resolve));
    return value;
  };
  return {
    load,
    loads: () => loads,
    releaseAll: () => releases.splice(0).forEach((release) => release()),
  };
}

describe('ProjectCache', () => {
  it('answers a held value synchronously, a stored "none" (null) included', async () => {
    const cache = new ProjectCache(async (_projectId, key) => (key === 'nobody' ? null : { key }));
    expect(cache.get(1, 'a')).toBeInstanceOf(Promise);
    expect(await cache.get(1, 'a')).toEqual({ key: 'a' });
    expect(cache.get(1, 'a')).toEqual({ key: 'a' });
    await cache.get(1, 'nobody');
    expect(cache.get(1, 'nobody')).toBeNull();
  });

  it('shares one load among the callers of a missing key', async () => {
    const gate = gatedLoads((projectId, key) => `${projectId}/${key}`);
    const cache = new ProjectCache(gate.load);
    const first = cache.get(1, 'a');
    const second = cache.get(1, 'a');
    expect(second).toBe(first);
    gate.releaseAll();
    expect(await first).toBe('1/a');
    expect(gate.loads()).toBe(1);
  });

  it("drops a project's values and discards its loads in flight on invalidate; other projects keep theirs", async () => {
    let version = 'old';
    const gate = gatedLoads((projectId, key) => `${projectId}/${key}@${version}`);
    const cache = new ProjectCache(gate.load);
    const other = cache.get(2, 'b');
    gate.releaseAll();
    await other;

    const stale = cache.get(1, 'a');
    version = 'new';
    cache.invalidate(1);
    gate.releaseAll();
    // Its caller still gets what it asked for, but the cache does not keep it.
    expect(await stale).toBe('1/a@old');
    const fresh = cache.get(1, 'a');
    expect(fresh).not.toBe(stale);
    expect(fresh).toBeInstanceOf(Promise);
    gate.releaseAll();
    expect(await fresh).toBe('1/a@new');
    expect(cache.get(1, 'a')).toBe('1/a@new');
    expect(cache.get(2, 'b')).toBe('2/b@old');
  });

  it('does not keep a failed load', async () => {
    let fail = true;
    const cache = new ProjectCache(async () => {
      if (fail) throw new Error('store down');
      return 'value';
    });
    await expect(cache.get(1, 'a')).rejects.toThrow('store down');
    fail = false;
    expect(await cache.get(1, 'a')).toBe('value');
    expect(cache.get(1, 'a')).toBe('value');
  });

  it('drops everything it holds once the bound is reached', async () => {
    let loads = 0;
    const cache = new ProjectCache(async (_projectId, key) => `${key}:${++loads}`, 2);
    await cache.get(1, 'a');
    await cache.get(2, 'b');
    expect(cache.get(1, 'a')).toBe('a:1');
    await cache.get(1, 'c');
    expect(cache.get(1, 'c')).toBe('c:3');
    expect(cache.get(1, 'a')).toBeInstanceOf(Promise);
    expect(cache.get(2, 'b')).toBeInstanceOf(Promise);
  });

  it('counts an invalidated project out of the bound', async () => {
    const cache = new ProjectCache(async (_projectId, key) => key, 2);
    await cache.get(1, 'a');
    await cache.get(1, 'b');
    cache.invalidate(1);
    await cache.get(2, 'c');
    await cache.get(2, 'd');
    expect(cache.get(2, 'c')).toBe('c');
    expect(cache.get(2, 'd')).toBe('d');
  });

  it('invalidateAll drops every project and the loads in flight, whose answers are then not kept', async () => {
    let version = 1;
    const gate = gatedLoads((projectId, key) => `${projectId}/${key}@${version}`);
    const cache = new ProjectCache(gate.load);
    const held = [cache.get(1, 'a'), cache.get(2, 'b')];
    gate.releaseAll();
    await Promise.all(held);
    const inFlight = cache.get(3, 'c');
    version = 2;
    cache.invalidateAll();
    gate.releaseAll();
    expect(await inFlight).toBe('3/c@1');
    for (const [project, key] of [[1, 'a'], [2, 'b'], [3, 'c']] as const) {
      const again = cache.get(project, key);
      expect(again).toBeInstanceOf(Promise);
      gate.releaseAll();
      expect(await again).toBe(`${project}/${key}@2`);
    }
  });
});
