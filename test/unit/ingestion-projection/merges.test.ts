import { describe, expect, it } from 'vitest';
import { isDistinctIdIllegal, personUuid } from '../../../projections/ingestion';
import { count, eventRow, freshStore, LogBuilder, PROJECT, personRow, warningTypes } from './helpers';

const uuidOf = (e: { data: unknown }) => (e.data as { uuid: string }).uuid;

describe('ingestion projection: $identify', () => {
  it('neither id known: one identified person holding both ids, uuid from the event distinct id', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    const e = log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $set: { email: 'a@b.c' } });
    await apply(e);
    const id = personUuid(PROJECT, 'user');
    expect(await q.persons(PROJECT, { limit: 10 })).toEqual({
      count: 1,
      results: [
        {
          id,
          uuid: id,
          distinct_ids: ['user', 'anon'],
          properties: { email: 'a@b.c' },
          created_at: (e.data as { timestamp: string }).timestamp,
          is_identified: true,
        },
      ],
    });
    expect(personRow(db, id)?.version).toBe(0);
    expect(eventRow(db, uuidOf(e))?.person_id).toBe(id);
  });

  it('only the anon id known: the event id joins the anon person, which becomes identified', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('$pageview', 'anon', { $set: { a: 1 } }));
    const e = log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $set: { b: 2 } });
    await apply(e);
    const anonPerson = personUuid(PROJECT, 'anon');
    expect(await q.personIdOf(PROJECT, 'user')).toBe(anonPerson);
    expect(await q.personByDistinctId(PROJECT, 'user')).toMatchObject({
      properties: { a: 1, b: 2 },
      is_identified: true,
      version: 1,
    });
    expect(count(db, 'persons')).toBe(1);
    expect(eventRow(db, uuidOf(e))?.person_id).toBe(anonPerson);
  });

  it('only the event id known: the anon id is added to it', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('x', 'user'), log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }));
    expect(await q.personIdOf(PROJECT, 'anon')).toBe(personUuid(PROJECT, 'user'));
    expect((await q.persons(PROJECT, { limit: 10 })).results[0]).toMatchObject({ distinct_ids: ['user', 'anon'], is_identified: true });
    expect(count(db, 'persons')).toBe(1);
  });

  it('both known, anon not identified: merged; survivor values win; older created_at; max version + 1', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(
      log.capture('x', 'anon', { $set: { shared: 'anon', onlyAnon: 1 } }, { timestamp: '2024-01-01T00:00:00.000Z' }),
      log.capture('x', 'anon', { $set: { v: 1 } }),
      log.capture('x', 'anon', { $set: { v: 2 } }),
      log.capture('x', 'user', { $set: { shared: 'user', onlyUser: 1 } }, { timestamp: '2024-02-01T00:00:00.000Z' }),
    );
    const e = log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $set: { fromEvent: true } });
    await apply(e);

    const survivor = personUuid(PROJECT, 'user');
    expect(count(db, 'persons')).toBe(1);
    expect(personRow(db, personUuid(PROJECT, 'anon'))).toBeUndefined();
    expect(await q.personIdOf(PROJECT, 'anon')).toBe(survivor);
    expect(await q.personByDistinctId(PROJECT, 'anon')).toEqual({
      id: survivor,
      uuid: survivor,
      properties: { shared: 'user', onlyAnon: 1, v: 2, onlyUser: 1, fromEvent: true },
      created_at: '2024-01-01T00:00:00.000Z',
      is_identified: true,
      version: 3,
    });
    expect(eventRow(db, uuidOf(e))?.person_id).toBe(survivor);
    // Distinct ids are listed in the order they were first added.
    expect((await q.persons(PROJECT, { limit: 10 })).results[0].distinct_ids).toEqual(['anon', 'user']);
  });

  it('neither id known with an $unset of a key the same event sets: created, then updated (PostHog order)', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$identify', 'user', { $anon_distinct_id: 'anon', $set: { a: 1, b: 2 }, $unset: ['b'] }));
    expect(await q.personByDistinctId(PROJECT, 'anon')).toMatchObject({ properties: { a: 1 }, version: 1 });
  });

  it('both known, anon person already identified: skipped with cannot_merge_already_identified', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(
      log.capture('$identify', 'other', { $anon_distinct_id: 'other-anon' }),
      log.capture('x', 'user', { $set: { a: 1 } }),
      log.capture('$identify', 'user', { $anon_distinct_id: 'other', $set: { b: 2 } }),
    );
    expect(count(db, 'persons')).toBe(2);
    expect(await q.personIdOf(PROJECT, 'other')).toBe(personUuid(PROJECT, 'other'));
    expect(await q.ingestionWarnings(PROJECT, { limit: 10 })).toMatchObject([
      {
        type: 'cannot_merge_already_identified',
        source: 'ingestion',
        details: { sourcePersonDistinctId: 'other', targetPersonDistinctId: 'user' },
      },
    ]);
    // PostHog still applies the event's properties and marks the target identified.
    expect(await q.personByDistinctId(PROJECT, 'user')).toMatchObject({ properties: { a: 1, b: 2 }, is_identified: true });
  });

  it('both ids already on one person: nothing to merge', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    await apply(log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }), log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }));
    expect(count(db, 'persons')).toBe(1);
    expect(warningTypes(db)).toEqual([]);
    expect(personRow(db, personUuid(PROJECT, 'user'))?.version).toBe(0);
  });

  it('self-merge does nothing: no second id, not identified', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('$identify', 'user', { $anon_distinct_id: 'user' }));
    expect(count(db, 'person_distinct_ids')).toBe(1);
    expect((await q.personByDistinctId(PROJECT, 'user'))?.is_identified).toBe(false);
    expect(warningTypes(db)).toEqual([]);
  });

  it('$identify without $anon_distinct_id only updates properties (PostHog does not mark it identified)', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('$identify', 'user', { $set: { a: 1 } }));
    expect(await q.personByDistinctId(PROJECT, 'user')).toMatchObject({ properties: { a: 1 }, is_identified: false });
  });
});

describe('ingestion projection: $create_alias and $merge_dangerously', () => {
  it('$create_alias with the alias known merges it into the event id person', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('x', 'alias-id', { $set: { a: 'alias' } }), log.capture('x', 'main', { $set: { a: 'main' } }));
    await apply(log.capture('$create_alias', 'main', { alias: 'alias-id' }));
    expect(count(db, 'persons')).toBe(1);
    expect(await q.personIdOf(PROJECT, 'alias-id')).toBe(personUuid(PROJECT, 'main'));
    expect((await q.personByDistinctId(PROJECT, 'alias-id'))?.properties).toEqual({ a: 'main' });
  });

  it('alias both ways ends on one person either way', async () => {
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const log = new LogBuilder();
      const { db, q, apply } = freshStore();
      await apply(log.capture('x', 'a'), log.capture('x', 'b'), log.capture('$create_alias', from, { alias: to }));
      expect(count(db, 'persons')).toBe(1);
      expect(await q.personIdOf(PROJECT, 'a')).toBe(await q.personIdOf(PROJECT, 'b'));
      expect(await q.personIdOf(PROJECT, 'a')).toBe(personUuid(PROJECT, from));
    }
  });

  it('$create_alias refuses to merge away an identified person; $merge_dangerously does it', async () => {
    const setup = (log: LogBuilder) => [
      log.capture('$identify', 'identified', { $anon_distinct_id: 'x' }),
      log.capture('x', 'main'),
    ];
    const refused = freshStore();
    const log1 = new LogBuilder();
    await refused.apply(...setup(log1), log1.capture('$create_alias', 'main', { alias: 'identified' }));
    expect(count(refused.db, 'persons')).toBe(2);
    expect(warningTypes(refused.db)).toEqual(['cannot_merge_already_identified']);

    const forced = freshStore();
    const log2 = new LogBuilder();
    await forced.apply(...setup(log2), log2.capture('$merge_dangerously', 'main', { alias: 'identified' }));
    expect(count(forced.db, 'persons')).toBe(1);
    expect(await forced.q.personIdOf(PROJECT, 'x')).toBe(personUuid(PROJECT, 'main'));
    expect(await forced.q.personByDistinctId(PROJECT, 'main')).toMatchObject({ is_identified: true, version: 1 });
    expect(warningTypes(forced.db)).toEqual([]);
  });

  it('an alias event without alias is an ordinary event', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    await apply(log.capture('$create_alias', 'main', { alias: '' }));
    expect(count(db, 'person_distinct_ids')).toBe(1);
  });
});

describe('ingestion projection: illegal distinct ids', () => {
  it.each(['anonymous', 'ANONYMOUS', 'Guest', 'null', 'undefined', 'UNDEFINED', '0', 'NaN', 'None', 'none', '[object Object]', 'true', 'FALSE', '  ', '"undefined"', "'null'"])(
    '%j never merges (cannot_merge_with_illegal_distinct_id)',
    async (illegal) => {
      expect(isDistinctIdIllegal(illegal)).toBe(true);
      const log = new LogBuilder();
      const { db, q, apply } = freshStore();
      await apply(log.capture('$identify', 'user', { $anon_distinct_id: illegal }));
      expect(await q.personIdOf(PROJECT, illegal)).toBeNull();
      expect((await q.personByDistinctId(PROJECT, 'user'))?.is_identified).toBe(false);
      expect(await q.ingestionWarnings(PROJECT, { limit: 5 })).toMatchObject([
        { type: 'cannot_merge_with_illegal_distinct_id', details: { illegalDistinctId: illegal, otherDistinctId: 'user' } },
      ]);
      expect(count(db, 'persons')).toBe(1);
    },
  );

  it.each(['nan', 'NONE', 'Null', 'user-0', 'anonymous-1'])('%j is a legal id', (id) => {
    expect(isDistinctIdIllegal(id)).toBe(false);
  });

  it('an illegal event distinct id does not merge either, but still gets its own person', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('$create_alias', 'anonymous', { alias: 'real' }));
    expect(warningTypes(db)).toEqual(['cannot_merge_with_illegal_distinct_id']);
    expect(await q.personIdOf(PROJECT, 'real')).toBeNull();
    expect(await q.personIdOf(PROJECT, 'anonymous')).toBe(personUuid(PROJECT, 'anonymous'));
  });
});

describe('ingestion projection: person at ingestion', () => {
  it('events keep the person their distinct id had when they were folded', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    const before = log.capture('x', 'anon');
    await apply(before, log.capture('x', 'user'));
    const identify = log.capture('$identify', 'user', { $anon_distinct_id: 'anon' });
    const after = log.capture('x', 'anon');
    await apply(identify, after);
    expect(eventRow(db, uuidOf(before))?.person_id).toBe(personUuid(PROJECT, 'anon'));
    expect(eventRow(db, uuidOf(identify))?.person_id).toBe(personUuid(PROJECT, 'user'));
    expect(eventRow(db, uuidOf(after))?.person_id).toBe(personUuid(PROJECT, 'user'));
  });
});
