import { describe, expect, it } from 'vitest';
import { count, eventRow, freshStore, LogBuilder, PROJECT, RECORDED_AT } from './helpers';

const uuidOf = (e: { data: unknown }) => (e.data as { uuid: string }).uuid;

describe('ingestion projection: events table', () => {
  it('stores one row per event with canonical ISO times, elements_chain and the migration flag', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    const e = log.capture(
      '$autocapture',
      'u1',
      { $elements_chain: 'a:href="/x"', $lib: 'web' },
      { timestamp: '2024-05-01T10:00:00Z', receivedAt: '2024-05-01T10:00:01.5Z', historical: true },
    );
    await apply(e);
    expect(eventRow(db, uuidOf(e))).toMatchObject({
      project_id: PROJECT,
      event: '$autocapture',
      distinct_id: 'u1',
      timestamp: '2024-05-01T10:00:00.000Z',
      received_at: '2024-05-01T10:00:01.500Z',
      properties: JSON.stringify({ $elements_chain: 'a:href="/x"', $lib: 'web' }),
      elements_chain: 'a:href="/x"',
      historical_migration: 1,
    });
  });

  it('an unparseable timestamp falls back to the log time', async () => {
    const log = new LogBuilder();
    const { db, apply } = freshStore();
    const e = log.capture('x', 'u1', {}, { timestamp: 'not a date' });
    await apply(e);
    expect(eventRow(db, uuidOf(e))).toMatchObject({ timestamp: RECORDED_AT, elements_chain: '', historical_migration: 0 });
  });

  it('a re-sent event (same project and uuid) is ignored entirely', async () => {
    const log = new LogBuilder();
    const { db, q, apply } = freshStore();
    const uuid = '0190a0a0-0000-7000-8000-000000000001';
    await apply(log.capture('x', 'u1', { $set: { a: 1 } }, { uuid }));
    await apply(log.capture('x', 'u1', { $set: { a: 2 } }, { uuid }), log.capture('$identify', 'u9', { $anon_distinct_id: 'u1' }, { uuid }));
    expect(count(db, 'events')).toBe(1);
    expect(await q.personByDistinctId(PROJECT, 'u1')).toMatchObject({ properties: { a: 1 }, version: 0 });
    expect(await q.personIdOf(PROJECT, 'u9')).toBeNull();
    // The same uuid in another project is another event.
    await apply(log.capture('x', 'u1', {}, { uuid, projectId: 2 }));
    expect(count(db, 'events')).toBe(2);
  });

  it('lists events newest first with event, distinct_id and strict after/before filters', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.capture('a', 'u1', {}, { timestamp: '2024-01-01T00:00:00Z' }),
      log.capture('b', 'u1', {}, { timestamp: '2024-01-02T00:00:00Z' }),
      log.capture('a', 'u2', {}, { timestamp: '2024-01-03T00:00:00Z' }),
      log.capture('a', 'u1', {}, { timestamp: '2024-01-04T00:00:00Z' }),
    );
    const stamps = (rows: { timestamp: string }[]) => rows.map((r) => r.timestamp.slice(0, 10));
    expect(stamps(await q.events(PROJECT, { limit: 10 }))).toEqual(['2024-01-04', '2024-01-03', '2024-01-02', '2024-01-01']);
    expect(stamps(await q.events(PROJECT, { event: 'a', distinctId: 'u1', limit: 10 }))).toEqual(['2024-01-04', '2024-01-01']);
    expect(stamps(await q.events(PROJECT, { after: '2024-01-01T00:00:00Z', before: '2024-01-04T00:00:00.000Z', limit: 10 }))).toEqual([
      '2024-01-03',
      '2024-01-02',
    ]);
    expect(stamps(await q.events(PROJECT, { limit: 1, offset: 1 }))).toEqual(['2024-01-03']);
    expect((await q.events(PROJECT, { limit: 1 }))[0]).toMatchObject({ event: 'a', distinct_id: 'u1', properties: {}, historical_migration: false });
  });

  it('lists the events of a person through its distinct ids, including those from before a merge', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.capture('before', 'anon'),
      log.capture('other', 'stranger'),
      log.capture('$identify', 'user', { $anon_distinct_id: 'anon' }),
      log.capture('after', 'anon'),
    );
    const personId = (await q.personIdOf(PROJECT, 'user')) ?? '';
    expect((await q.events(PROJECT, { personId, limit: 10 })).map((e) => e.event)).toEqual(['after', '$identify', 'before']);
    expect((await q.events(PROJECT, { personId, event: 'before', limit: 10 })).map((e) => e.distinct_id)).toEqual(['anon']);
  });

  it('lists persons newest first, filtered by distinct id, with a count', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(log.capture('x', 'u1'), log.capture('x', 'u2'), log.capture('x', 'u3'));
    expect(await q.persons(PROJECT, { limit: 2 })).toMatchObject({ count: 3, results: [{ distinct_ids: ['u3'] }, { distinct_ids: ['u2'] }] });
    expect((await q.persons(PROJECT, { limit: 2, offset: 2 })).results.map((p) => p.distinct_ids)).toEqual([['u1']]);
    expect(await q.persons(PROJECT, { distinctId: 'u2', limit: 10 })).toMatchObject({ count: 1, results: [{ distinct_ids: ['u2'] }] });
    expect(await q.persons(PROJECT, { distinctId: 'nobody', limit: 10 })).toEqual({ count: 0, results: [] });
  });
});

describe('ingestion projection: project of an event', () => {
  it('falls back to the ingest-<id> stream when the metadata has no project', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    const e = log.capture('x', 'u1', {}, { projectId: 7 });
    await apply({ ...e, metadata: { ...e.metadata, projectId: null } });
    expect(await q.personIdOf(7, 'u1')).not.toBeNull();
    expect(await q.personByDistinctId(7, 'nobody')).toBeUndefined();
  });
});

describe('ingestion projection: ingestion warnings', () => {
  it('records IngestionWarningRaised and fold warnings in one list, newest first, stamped with the log time', async () => {
    const log = new LogBuilder();
    const { q, apply } = freshStore();
    await apply(
      log.warning('skipping_event_invalid_distinct_id', { eventUuid: 'x' }),
      log.capture('$identify', 'u1', { $anon_distinct_id: 'null' }),
      log.warning('other_project', {}, 2),
    );
    expect(await q.ingestionWarnings(PROJECT, { limit: 10 })).toEqual([
      {
        type: 'cannot_merge_with_illegal_distinct_id',
        source: 'ingestion',
        details: expect.objectContaining({ illegalDistinctId: 'null', otherDistinctId: 'u1' }),
        timestamp: RECORDED_AT,
      },
      { type: 'skipping_event_invalid_distinct_id', source: 'capture', details: { eventUuid: 'x' }, timestamp: RECORDED_AT },
    ]);
    expect(await q.ingestionWarnings(PROJECT, { limit: 1, offset: 1 })).toMatchObject([{ type: 'skipping_event_invalid_distinct_id' }]);
    expect(await q.ingestionWarnings(2, { limit: 10 })).toMatchObject([{ type: 'other_project' }]);
  });
});
