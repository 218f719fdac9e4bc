import { describe, expect, it } from 'vitest';
import { personUuid } from '../../../projections/ingestion/ids';
import { count, eventRow, freshStore, LogBuilder, PROJECT } from './helpers';

describe('ingestion fold edges: groups', () => {
  it('$groupidentify without a usable type or key creates no group and no type', async () => {
    const bad: Record<string, unknown>[] = [
      { $group_type: 'company', $group_key: '' },
      { $group_type: 'company', $group_key: true },
      { $group_type: 'company' },
      { $group_type: '', $group_key: 'acme' },
      { $group_type: 5, $group_key: 'acme' },
      { $group_key: 'acme' },
    ];
    for (const props of bad) {
      const log = new LogBuilder();
      const s = freshStore();
      await s.apply(log.capture('$groupidentify', 'd', { ...props, $group_set: { a: 1 } }));
      expect([props, count(s.db, 'groups'), count(s.db, 'group_type_mappings')]).toEqual([props, 0, 0]);
    }
  });

  it('a numeric group key names the group as text', async () => {
    const log = new LogBuilder();
    const s = freshStore();
    await s.apply(log.capture('$groupidentify', 'd', { $group_type: 'company', $group_key: 42, $group_set: {} }));
    expect(s.db.prepare('SELECT group_key FROM groups').all()).toEqual([{ group_key: '42' }]);
  });

  it('$groups entries with an empty type or key fill no column and get no index', async () => {
    const log = new LogBuilder();
    const s = freshStore();
    const e = log.capture('$pageview', 'd', { $groups: { '': 'x', company: '', team: 'red' } });
    await s.apply(e);
    expect(s.db.prepare('SELECT group_type, group_type_index FROM group_type_mappings').all()).toEqual([{ group_type: 'team', group_type_index: 0 }]);
    const row = eventRow(s.db, (e.data as { uuid: string }).uuid)!;
    expect([row.group_0, row.group_1]).toEqual(['red', null]);
  });
});

describe('ingestion fold edges: merges', () => {
  it('alias and $anon_distinct_id merge only on the events that carry them by PostHog’s rules', async () => {
    const log = new LogBuilder();
    const s = freshStore();
    await s.apply(
      log.capture('$pageview', 'a', { alias: 'x' }),
      log.capture('$pageview', 'b', { $anon_distinct_id: 'y' }),
      log.capture('$create_alias', 'c', { alias: '' }),
    );
    expect(count(s.db, 'persons')).toBe(3);
    expect(count(s.db, 'person_distinct_ids')).toBe(3);
    expect(await s.q.personIdOf(PROJECT, 'x')).toBeNull();
    expect(await s.q.personIdOf(PROJECT, 'y')).toBeNull();
  });

  it('$identify without $anon_distinct_id just folds the person', async () => {
    const log = new LogBuilder();
    const s = freshStore();
    await s.apply(log.capture('$identify', 'u', { $set: { a: 1 } }), log.capture('$identify', 'u', { $set: { a: 2 } }));
    expect(await s.q.personByDistinctId(PROJECT, 'u')).toMatchObject({ properties: { a: 2 } });
    expect(count(s.db, 'person_hash_key_overrides')).toBe(0);
  });

  it('a merge keeps the older created_at also when the surviving person is the older one', async () => {
    const log = new LogBuilder();
    const s = freshStore();
    await s.apply(
      log.capture('x', 'user', {}, { timestamp: '2024-01-01T00:00:00.000Z' }),
      log.capture('x', 'anon', {}, { timestamp: '2024-02-01T00:00:00.000Z' }),
      log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }),
    );
    expect(await s.q.personByDistinctId(PROJECT, 'anon')).toMatchObject({ id: personUuid(PROJECT, 'user'), created_at: '2024-01-01T00:00:00.000Z' });
  });

  it('$identify merging two known persons keeps bucketing flags by the anonymous id', async () => {
    const log = new LogBuilder();
    const s = freshStore();
    await s.apply(log.capture('x', 'anon'), log.capture('x', 'user'), log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }));
    expect(await s.q.hashKeyOverrideFor(PROJECT, 'user')).toBe('anon');
  });
});
