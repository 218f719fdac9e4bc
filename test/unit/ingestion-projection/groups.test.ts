import { describe, expect, it } from 'vitest';
import { count, eventRow, freshStore, LogBuilder, PROJECT } from './helpers';

const uuidOf = (e: { data: unknown }) => (e.data as { uuid: string }).uuid;
const identify = (log: LogBuilder, type: string, key: unknown, set: Record<string, unknown> = {}, timestamp?: string) =>
  log.capture('$groupidentify', `$${type}_${String(key)}`, { $group_type: type, $group_key: key, $group_set: set }, { timestamp });

describe('ingestion projection: groups', () => {
  it('$groupidentify creates the group with its $group_set (a date-joined timestamp kept as a property)', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(identify(log, 'company', 'acme', { name: 'Acme', date_joined: '2023-03-01T00:00:00Z' }, '2024-05-01T00:00:00Z'));
    expect(await q.groupTypeMappings(PROJECT)).toEqual([{ group_type: 'company', group_type_index: 0 }]);
    expect(await q.group(PROJECT, 0, 'acme')).toEqual({
      group_type_index: 0,
      group_key: 'acme',
      group_properties: { name: 'Acme', date_joined: '2023-03-01T00:00:00Z' },
      created_at: '2024-05-01T00:00:00.000Z',
    });
  });

  it('a later $group_identify (other spelling) merges properties like $set and keeps the first created_at', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(
      identify(log, 'company', 'acme', { name: 'Acme', size: 1 }, '2024-05-01T00:00:00.000Z'),
      log.capture('$group_identify', 'u1', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 2, plan: 'pro' } }),
    );
    expect(await q.group(PROJECT, 0, 'acme')).toMatchObject({
      group_properties: { name: 'Acme', size: 2, plan: 'pro' },
      created_at: '2024-05-01T00:00:00.000Z',
    });
    expect(db.prepare('SELECT version FROM groups').get()).toEqual({ version: 1 });
    await apply(identify(log, 'company', 'acme', { size: 2 }));
    expect(db.prepare('SELECT version FROM groups').get()).toEqual({ version: 1 });
  });

  it('numeric group keys are stored as strings', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(identify(log, 'company', 42));
    expect(await q.group(PROJECT, 0, '42')).toBeDefined();
  });

  it('group types get indexes 0..4 in order of first sight; a sixth is refused with one warning', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    for (const type of ['t0', 't1', 't2', 't3', 't4']) await apply(identify(log, type, 'k'));
    await apply(identify(log, 't5', 'k'), identify(log, 't5', 'k2'), log.capture('x', 'u', { $groups: { t5: 'k' } }));
    expect((await q.groupTypeMappings(PROJECT)).map((m) => [m.group_type, m.group_type_index])).toEqual([
      ['t0', 0],
      ['t1', 1],
      ['t2', 2],
      ['t3', 3],
      ['t4', 4],
    ]);
    expect(count(db, 'groups')).toBe(5);
    expect(await q.ingestionWarnings(PROJECT, { limit: 10 })).toMatchObject([
      { type: 'group_type_limit_exceeded', details: { groupType: 't5', maxGroupTypes: 5 } },
    ]);
  });

  it('group type indexes are per project', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('x', 'u', { $groups: { a: '1' } }, { projectId: 1 }), log.capture('x', 'u', { $groups: { b: '1' } }, { projectId: 2 }));
    expect(await q.groupTypeMappings(2)).toEqual([{ group_type: 'b', group_type_index: 0 }]);
  });

  it('$groups on any event fills the group columns by type index without creating the group', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    await apply(identify(log, 'company', 'acme'));
    const e = log.capture('$pageview', 'u1', { $groups: { project: 'p1', company: 'acme', junk: { no: 1 } } });
    await apply(e);
    // The unknown type "project" got the next index, as PostHog's addGroupProperties does.
    expect(await q.groupTypeMappings(PROJECT)).toEqual([
      { group_type: 'company', group_type_index: 0 },
      { group_type: 'project', group_type_index: 1 },
    ]);
    expect(eventRow(db, uuidOf(e))).toMatchObject({ group_0: 'acme', group_1: 'p1', group_2: null, group_3: null, group_4: null });
    expect(await q.group(PROJECT, 1, 'p1')).toBeUndefined();
    expect(count(db, 'groups')).toBe(1);
  });

  it('lists groups by type and key, newest first, with a count', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      identify(log, 'company', 'a', {}, '2024-01-01T00:00:00Z'),
      identify(log, 'company', 'b', {}, '2024-01-02T00:00:00Z'),
      identify(log, 'project', 'a', {}, '2024-01-03T00:00:00Z'),
    );
    expect(await q.groups(PROJECT, { groupTypeIndex: 0, limit: 10 })).toMatchObject({
      count: 2,
      results: [{ group_key: 'b' }, { group_key: 'a' }],
    });
    expect(await q.groups(PROJECT, { groupKey: 'a', limit: 1, offset: 1 })).toMatchObject({
      count: 2,
      results: [{ group_type_index: 0, group_key: 'a' }],
    });
  });
});
