import { describe, expect, it } from 'vitest';
import { count, freshStore, LogBuilder, PROJECT } from './helpers';

describe('ingestion projection: hash-key overrides (experience continuity)', () => {
  it('$identify stores the anon id as the person override, readable through any of its distinct ids', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('x', 'anon'), log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }));
    expect(await q.hashKeyOverrideFor(PROJECT, 'user')).toBe('anon');
    expect(await q.hashKeyOverrideFor(PROJECT, 'anon')).toBe('anon');
    expect(await q.hashKeyOverrideFor(PROJECT, 'nobody')).toBeNull();
  });

  it('the first override wins', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.capture('$identify', 'user', { $anon_distinct_id: 'anon-1' }),
      log.capture('$identify', 'user', { $anon_distinct_id: 'anon-2' }),
    );
    expect(await q.hashKeyOverrideFor(PROJECT, 'user')).toBe('anon-1');
  });

  it('a merge moves the override to the survivor, whose own override wins', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    // "a" is identified with anon-a, "b" with anon-b; b is then merged into a, and c into a.
    await apply(
      log.capture('$identify', 'a', { $anon_distinct_id: 'anon-a' }),
      log.capture('$identify', 'b', { $anon_distinct_id: 'anon-b' }),
      log.capture('$merge_dangerously', 'a', { alias: 'b' }),
    );
    expect(await q.hashKeyOverrideFor(PROJECT, 'anon-b')).toBe('anon-a');
    expect(count(db, 'person_hash_key_overrides')).toBe(1);

    await apply(
      log.capture('$identify', 'c', { $anon_distinct_id: 'anon-c' }),
      log.capture('x', 'd'),
      log.capture('$merge_dangerously', 'd', { alias: 'c' }),
    );
    expect(await q.hashKeyOverrideFor(PROJECT, 'd')).toBe('anon-c');
    expect(count(db, 'person_hash_key_overrides')).toBe(2);
  });

  it('no override for aliases, refused merges, illegal or self ids', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    await apply(
      log.capture('$create_alias', 'u1', { alias: 'a1' }),
      log.capture('$identify', 'u2', { $anon_distinct_id: 'anonymous' }),
      log.capture('$identify', 'u3', { $anon_distinct_id: 'u3' }),
      log.capture('$identify', 'u4', { $anon_distinct_id: 'x4' }),
      log.capture('x', 'u5'),
      log.capture('$identify', 'u5', { $anon_distinct_id: 'u4' }),
    );
    // Only u4's own identify links an anon id; u5's attempt on identified u4 is refused.
    expect(db.prepare('SELECT hash_key FROM person_hash_key_overrides').all()).toEqual([{ hash_key: 'x4' }]);
  });
});
