import { describe, expect, it } from 'vitest';
import { createIngestionProjection, ingestionProjection } from '../../../projections/ingestion';
import type { SqlStore } from '../../../src/store/read-model-projection';
import { digestProjection } from '../../../src/runtime/digest';
import { sqliteSession, sqliteTableDdl } from '../../../src/adapters/sqlite/read-models';
import { QUARANTINE_SCHEMA } from '../../../src/runtime/quarantine';
import { count, fold, freshStore, LogBuilder, PROJECT, rowsOf } from './helpers';
import { setPersonCacheEnabled } from '../../../projections/ingestion/person-cache';
import type { RecordedEvent } from '../../../streams';
import { asBatches, mixedLog } from './mixed-log';

describe('ingestion projection: determinism', () => {
  it('the same log folded into two fresh stores gives identical rows in every table', async () => {
    const events = mixedLog(600);
    const a = freshStore();
    const b = freshStore();
    await a.apply(...events);
    // The second store folds the same log in runner-style transactions of uneven batches.
    for (let i = 0; i < events.length; i += 97) await b.store.transaction((tx) => fold(tx, events.slice(i, i + 97)));

    for (const table of ingestionProjection.tables) {
      expect(rowsOf(b.db, table.name), table.name).toEqual(rowsOf(a.db, table.name));
    }
    for (const db of [a.sqlite, b.sqlite]) for (const ddl of sqliteTableDdl(QUARANTINE_SCHEMA)) db.exec(ddl);
    expect(await digestProjection(sqliteSession(b.sqlite), ingestionProjection)).toBe(await digestProjection(sqliteSession(a.sqlite), ingestionProjection));
    // Sanity: the log really exercised merges, refusals, groups and the type limit.
    const types = new Set((a.db.prepare('SELECT type FROM ingestion_warnings').all() as { type: string }[]).map((r) => r.type));
    expect(types).toEqual(
      new Set([
        'cannot_merge_already_identified',
        'group_type_limit_exceeded',
      ]),
    );
    expect(rowsOf(a.db, 'groups').length).toBeGreaterThan(0);
    const persons = (rowsOf(a.db, 'persons') as { properties: string }[]).map((r) => JSON.parse(r.properties));
    expect(persons.some((p) => p.$initial_browser && p.$initial_geoip_country_code && p.$geoip_city_name === null)).toBe(true);
  });

  it('events batched into EventsCaptured records (as /batch/ appends them) fold as if recorded one by one', async () => {
    const events = mixedLog(600);
    const one = freshStore();
    await one.apply(...events);
    const batched = freshStore();
    await batched.apply(...asBatches(events));

    for (const table of ingestionProjection.tables) {
      if (['person_distinct_ids', 'persons', 'ingestion_warnings', 'distinct_id_events', 'person_merges'].includes(table.name)) continue;
      expect(rowsOf(batched.db, table.name), table.name).toEqual(rowsOf(one.db, table.name));
    }
    // Persons, distinct ids and warnings carry a sequence that depends on where the log put them; their order does not.
    const warnings = (db: SqlStore) => (rowsOf(db, 'ingestion_warnings') as { position: number; seq: number }[]).map(({ position: _position, seq: _seq, ...row }) => row);
    expect(warnings(batched.db)).toEqual(warnings(one.db));
    expect(warnings(one.db).length).toBeGreaterThan(1);
    const persons = (db: SqlStore) => (rowsOf(db, 'persons') as { seq_position: number; seq_index: number }[]).map(({ seq_position: _position, seq_index: _index, ...row }) => row);
    expect(persons(batched.db)).toEqual(persons(one.db));
    const listed = (db: SqlStore) => db.prepare('SELECT uuid FROM persons ORDER BY project_id, seq_position, seq_index').all();
    expect(listed(batched.db)).toEqual(listed(one.db));
    const order = (db: SqlStore) =>
      db.prepare(`SELECT project_id, person_id, group_concat(distinct_id, ' ') AS ids
                  FROM (SELECT * FROM person_distinct_ids ORDER BY seq_position, seq_index) GROUP BY project_id, person_id ORDER BY project_id, person_id`).all();
    expect(order(batched.db)).toEqual(order(one.db));
    // The events naming each id sit where the log put them; which ids were named, and who merged into whom, are not.
    const named = (db: SqlStore) => db.prepare('SELECT DISTINCT project_id, distinct_id FROM distinct_id_events ORDER BY 1, 2').all();
    expect(named(batched.db)).toEqual(named(one.db));
    expect(named(one.db).length).toBeGreaterThan(10);
    const merges = (db: SqlStore) => db.prepare('SELECT project_id, from_id, into_id FROM person_merges ORDER BY 1, 2').all();
    expect(merges(batched.db)).toEqual(merges(one.db));
    // Sanity: some person really holds several ids, so their order was compared.
    expect((order(one.db) as { ids: string }[]).some((r) => r.ids.includes(' '))).toBe(true);
  });

  it('which events the history keeps does not depend on the person cache', async () => {
    // Kept: the events that changed a person or group. The cached shortcut and the full path (a
    // person read from its row, as after a restart or in a replay) must decide alike. Single
    // events: a record's reads would fill the cache for its events.
    const log = new LogBuilder();
    const events: RecordedEvent[] = [];
    for (let i = 0; i < 40; i++) {
      const who = `user-${i % 4}`;
      // A page view with properties its person already holds (filtered ones change): no write.
      events.push(log.capture('$pageview', who, { $browser: 'Chrome', $current_url: `https://example.com/${i}` }));
      if (i % 10 === 9) events.push(log.capture('upgraded', who, { $set: { plan: `plan-${i}` } }));
      // Nothing to lift or set: nothing changes either.
      if (i % 10 === 4) events.push(log.capture('ping', who, {}));
      // Personless: no person is created, changed or merged (an identify is refused with a warning).
      if (i % 10 === 6) events.push(log.capture('$identify', `anon-${i}`, { $process_person_profile: false, $anon_distinct_id: who, $set: { plan: 'x' } }));
    }
    const warm = freshStore();
    await warm.apply(...events);
    setPersonCacheEnabled(false);
    const cold = freshStore();
    try {
      await cold.apply(...events);
    } finally {
      setPersonCacheEnabled(true);
    }
    expect(rowsOf(cold.db, 'distinct_id_events')).toEqual(rowsOf(warm.db, 'distinct_id_events'));
    // Kept: each person's first page view (it created the person) and every write; no ping, no personless event.
    const kept = warm.db.prepare("SELECT json_extract(event, '$.event') AS event, count(*) AS n FROM distinct_id_events GROUP BY 1 ORDER BY 1").all();
    expect(kept).toEqual([
      { event: '$pageview', n: 4 },
      { event: 'upgraded', n: 4 },
    ]);
  });

  it('every declared orderBy is a total order (no two rows tie)', async () => {
    const a = freshStore();
    await a.apply(...mixedLog(300));
    for (const table of ingestionProjection.tables) {
      const total = (a.db.prepare(`SELECT count(*) AS n FROM ${table.name}`).get() as { n: number }).n;
      const distinct = (
        a.db.prepare(`SELECT count(*) AS n FROM (SELECT DISTINCT ${table.orderBy} FROM ${table.name})`).get() as { n: number }
      ).n;
      expect(distinct, table.name).toBe(total);
    }
  });

  it('its tables are created idempotently', async () => {
    const { store } = freshStore();
    const tables = ingestionProjection.tables.filter((t) => 'columns' in t);
    expect(tables).toHaveLength(ingestionProjection.tables.length);
    await expect(store.transaction((tx) => tx.createTables(tables))).resolves.toBeUndefined();
  });

  it('applyAll (the next record folded while the previous one\'s rows are written) gives the rows of apply in turn', async () => {
    const records = asBatches(mixedLog(600));
    const inTurn = freshStore();
    await inTurn.apply(...records);
    const overlapped = freshStore();
    // Uneven runner-style batches, each in its own transaction.
    for (let i = 0; i < records.length; i += 13) await overlapped.store.transaction((tx) => ingestionProjection.applyAll!(records.slice(i, i + 13), tx));
    for (const table of ingestionProjection.tables) expect(rowsOf(overlapped.db, table.name), table.name).toEqual(rowsOf(inTurn.db, table.name));
    // Sanity: the log re-sends uuids, some of them in the record right after their first.
    expect(count(inTurn.db, 'events')).toBeLessThan(records.reduce((n, r) => n + (r.data as { events: unknown[] }).events.length, 0));
  });

  it('applyAll: an event re-sent in the next record counts once, in its own project only', async () => {
    const log = new LogBuilder();
    const uuid = '0190a0a0-0000-7000-8000-00000000abcd';
    const first = [log.capture('x', 'u1', { $set: { a: 1 } }, { uuid }), log.capture('y', 'u2')];
    const again = [log.capture('x', 'u1', { $set: { a: 2 } }, { uuid }), log.capture('z', 'u3')];
    const elsewhere = [log.capture('x', 'u1', {}, { uuid, projectId: 2 }), log.capture('w', 'u4', {}, { projectId: 2 })];
    const recordOf = (events: typeof first, position: number) => ({ ...events[0], position, type: 'EventsCaptured', data: { events: events.map((e) => e.data) } });
    const batch = [recordOf(first, 1), recordOf(again, 2), recordOf(elsewhere, 3)];
    const { db, q, store } = freshStore();
    await store.transaction((tx) => ingestionProjection.applyAll!(batch, tx));
    expect(count(db, 'events')).toBe(5);
    expect(await q.personByDistinctId(PROJECT, 'u1')).toMatchObject({ properties: { a: 1 } });
  });
});
