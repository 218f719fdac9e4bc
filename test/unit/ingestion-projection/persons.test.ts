import { describe, expect, it } from 'vitest';
import { personUuid } from '../../../projections/ingestion';
import { count, eventRow, freshStore, LogBuilder, PROJECT } from './helpers';

describe('ingestion projection: persons and property updates', () => {
  it('given an event from an unknown distinct id, then one unidentified person at version 0 created at the event time', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    const e = log.capture('$pageview', 'anon-1', { $set: { plan: 'free' } }, { timestamp: '2024-05-01T08:00:00Z' });
    await apply(e);

    const id = personUuid(PROJECT, 'anon-1');
    expect(await q.personIdOf(PROJECT, 'anon-1')).toBe(id);
    expect(await q.personByDistinctId(PROJECT, 'anon-1')).toEqual({
      id,
      uuid: id,
      properties: { plan: 'free' },
      created_at: '2024-05-01T08:00:00.000Z',
      is_identified: false,
      version: 0,
    });
    expect(eventRow(db, (e.data as { uuid: string }).uuid)?.person_id).toBe(id);
  });

  it('given a second event from the same id, then no new person', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    await apply(log.capture('a', 'u1'), log.capture('b', 'u1'));
    expect(count(db, 'persons')).toBe(1);
    expect(count(db, 'person_distinct_ids')).toBe(1);
  });

  it('person ids are UUIDv5 of (project, first distinct id), per project', async () => {
    expect(personUuid(1, 'u1')).toBe(personUuid(1, 'u1'));
    expect(personUuid(1, 'u1')).not.toBe(personUuid(2, 'u1'));
    expect(personUuid(1, 'u1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('applies $set_once (absent keys only), then $set (overwrite), then $unset, in that order', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.capture('a', 'u1', { $set: { a: 1, b: 1, c: 1 } }),
      log.capture('b', 'u1', {
        $set_once: { a: 'once', d: 'once', e: 'once' },
        $set: { b: 2, d: 'set' },
        $unset: ['c', 'e', 'missing'],
      }),
    );
    expect((await q.personByDistinctId(PROJECT, 'u1'))?.properties).toEqual({ a: 1, b: 2, d: 'set' });
  });

  it('accepts $unset as an object whose keys are unset', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('a', 'u1', { $set: { a: 1, b: 2 } }), log.capture('b', 'u1', { $unset: { a: null } }));
    expect((await q.personByDistinctId(PROJECT, 'u1'))?.properties).toEqual({ b: 2 });
  });

  it('a new person starts from $set_once and $set, $set winning, $unset ignored (PostHog createPerson)', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('a', 'u1', { $set_once: { a: 'once', b: 'once' }, $set: { a: 'set' }, $unset: ['b'] }));
    expect(await q.personByDistinctId(PROJECT, 'u1')).toMatchObject({ properties: { a: 'set', b: 'once' }, version: 0 });
  });

  it('bumps the version only when properties actually change', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    const version = async () => (await q.personByDistinctId(PROJECT, 'u1'))?.version;
    await apply(log.capture('a', 'u1', { $set: { a: 1, o: { x: [1] } } }));
    expect(await version()).toBe(0);
    await apply(log.capture('b', 'u1', { $set: { a: 1, o: { x: [1] } }, $set_once: { a: 9 }, $unset: ['nope'] }));
    expect(await version()).toBe(0);
    await apply(log.capture('c', 'u1'));
    expect(await version()).toBe(0);
    await apply(log.capture('d', 'u1', { $set: { a: 2 } }));
    expect(await version()).toBe(1);
    await apply(log.capture('e', 'u1', { $unset: ['a'] }));
    expect(await version()).toBe(2);
  });

  it('stores a property named __proto__ as a property', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('a', 'u1'), log.capture('b', 'u1', JSON.parse('{"$set": {"__proto__": {"x": 1}}}')));
    const props = (await q.personByDistinctId(PROJECT, 'u1'))?.properties ?? {};
    expect(Object.prototype.hasOwnProperty.call(props, '__proto__')).toBe(true);
  });

  it('keeps projects apart: the same distinct id in two projects is two persons', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('a', 'u1', {}, { projectId: 1 }), log.capture('a', 'u1', {}, { projectId: 2 }));
    expect(count(db, 'persons')).toBe(2);
    expect(await q.personIdOf(1, 'u1')).not.toBe(await q.personIdOf(2, 'u1'));
  });
});

describe('ingestion projection: $process_person_profile false', () => {
  it('never creates a person; the event gets the deterministic personless id and loses its person operations', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    const e = log.capture('$pageview', 'anon-1', { $process_person_profile: false, $set: { a: 1 }, $unset: ['b'], x: 1 });
    await apply(e);
    expect(count(db, 'persons')).toBe(0);
    expect(await q.personIdOf(PROJECT, 'anon-1')).toBeNull();
    const row = eventRow(db, (e.data as { uuid: string }).uuid);
    expect(row?.person_id).toBe(personUuid(PROJECT, 'anon-1'));
    expect(JSON.parse(String(row?.properties))).toEqual({ $process_person_profile: false, x: 1 });
  });

  it('uses the existing person when the distinct id has one, without updating it', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(log.capture('a', 'seed', { $set: { a: 1 } }), log.capture('$identify', 'user', { $anon_distinct_id: 'seed' }));
    const e = log.capture('b', 'seed', { $process_person_profile: false, $set: { a: 2 } });
    await apply(e);
    expect(eventRow(db, (e.data as { uuid: string }).uuid)?.person_id).toBe(await q.personIdOf(PROJECT, 'user'));
    expect((await q.personByDistinctId(PROJECT, 'seed'))?.properties).toEqual({ a: 1 });
  });

  it.each(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify', '$group_identify'])(
    'drops the person/group effects of %s with a warning, but keeps the event row',
    async (name) => {
      const log = new LogBuilder();
      const { db, q, apply } = freshStore();
      const e = log.capture(name, 'u1', {
        $process_person_profile: false,
        $anon_distinct_id: 'a1',
        alias: 'a1',
        $group_type: 'company',
        $group_key: 'acme',
        $group_set: { name: 'Acme' },
      });
      await apply(e);
      expect(count(db, 'persons')).toBe(0);
      expect(count(db, 'groups')).toBe(0);
      expect(await q.groupTypeMappings(PROJECT)).toEqual([]);
      expect(await q.ingestionWarnings(PROJECT, { limit: 10 })).toMatchObject([
        { type: 'invalid_event_when_process_person_profile_is_false', details: { event: name, distinctId: 'u1' } },
      ]);
      expect(eventRow(db, (e.data as { uuid: string }).uuid)).toBeDefined();
    },
  );

  it('only a boolean false disables person processing', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    await apply(log.capture('a', 'u1', { $process_person_profile: 'false' }));
    expect(count(db, 'persons')).toBe(1);
  });
});
