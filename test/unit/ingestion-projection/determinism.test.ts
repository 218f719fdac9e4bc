import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { ingestionProjection } from '../../../projections/ingestion';
import type { SqlStore } from '../../../projections/projection';
import { digestProjection } from '../../../src/runtime/digest';
import { sqliteSession, sqliteTableDdl } from '../../../src/adapters/sqlite/read-models';
import { QUARANTINE_SCHEMA } from '../../../src/runtime/quarantine';
import { fold, freshStore, LogBuilder, rowsOf } from './helpers';

/**
 * What a browser event carries for PostHog's person-property lifting (compat §10), varied by the
 * event's index only, so the seeded sequence below is the same as without it.
 */
const browserProperties = (i: number) => ({
  $browser: ['Chrome', 'Safari', 'Firefox'][i % 3],
  $current_url: `https://example.com/${i % 7}`,
  utm_source: i % 5 === 0 ? null : `src-${i % 4}`,
  $ip: '81.2.69.142',
  $geoip_country_code: ['GB', 'SE'][i % 2],
  ...(i % 11 === 0 ? { $geoip_city_name: 'London' } : {}),
});

/** A seeded mixed log: merges of every kind, groups past the type limit, personless events, re-sends, lifted properties. */
export function mixedLog(size: number): RecordedEvent[] {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const log = new LogBuilder();
  const events: RecordedEvent[] = [];
  const id = () => `user-${rand(40)}`;
  for (let i = 0; i < size; i++) {
    const projectId = 1 + rand(2);
    const opts = { projectId, timestamp: new Date(Date.UTC(2024, 0, 1) + rand(10_000) * 1000).toISOString() };
    switch (rand(9)) {
      case 0:
        events.push(log.capture('$identify', id(), { $anon_distinct_id: id(), $set: { n: rand(3) }, ...browserProperties(i) }, opts));
        break;
      case 1:
        events.push(log.capture('$create_alias', id(), { alias: id() }, opts));
        break;
      case 2:
        events.push(log.capture('$merge_dangerously', id(), { alias: id() }, opts));
        break;
      case 3:
        events.push(
          log.capture('$groupidentify', id(), { $group_type: `t${rand(7)}`, $group_key: `k${rand(3)}`, $group_set: { v: rand(3) } }, opts),
        );
        break;
      case 4:
        events.push(log.capture('$pageview', id(), { $process_person_profile: false, $set: { x: 1 } }, opts));
        break;
      case 5:
        if (events.length > 0) {
          const again = events[rand(events.length)];
          events.push(log.capture('resent', 'whoever', {}, { ...opts, uuid: (again.data as { uuid: string }).uuid, projectId: again.metadata.projectId ?? 1 }));
        }
        break;
      default:
        events.push(
          log.capture('$pageview', id(), {
            ...browserProperties(i),
            $set: { [`p${rand(4)}`]: rand(5) },
            $set_once: { first: i },
            $unset: rand(4) === 0 ? ['p0'] : [],
            $groups: { [`t${rand(7)}`]: `k${rand(3)}` },
          }, opts),
        );
    }
  }
  return events;
}

/** Consecutive events of one project grouped into EventsCaptured records of 1 to 25 events. */
export function asBatches(events: readonly RecordedEvent[]): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  let size = 1;
  for (let i = 0; i < events.length; ) {
    const first = events[i];
    const group = [first];
    while (group.length < size && i + group.length < events.length && events[i + group.length].streamId === first.streamId) {
      group.push(events[i + group.length]);
    }
    i += group.length;
    size = (size * 7) % 25 + 1;
    out.push({ ...first, position: out.length + 1, type: 'EventsCaptured', data: { events: group.map((e) => e.data) } });
  }
  return out;
}

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
      if (table.name === 'person_distinct_ids' || table.name === 'persons') continue;
      expect(rowsOf(batched.db, table.name), table.name).toEqual(rowsOf(one.db, table.name));
    }
    // Persons and distinct ids carry a sequence that depends on where the log put them; their order does not.
    const persons = (db: SqlStore) => (rowsOf(db, 'persons') as { seq: number }[]).map(({ seq: _seq, ...row }) => row);
    expect(persons(batched.db)).toEqual(persons(one.db));
    const listed = (db: SqlStore) => db.prepare('SELECT uuid FROM persons ORDER BY project_id, seq').all();
    expect(listed(batched.db)).toEqual(listed(one.db));
    const order = (db: SqlStore) =>
      db.prepare(`SELECT project_id, person_id, group_concat(distinct_id, ' ') AS ids
                  FROM (SELECT * FROM person_distinct_ids ORDER BY seq) GROUP BY project_id, person_id ORDER BY project_id, person_id`).all();
    expect(order(batched.db)).toEqual(order(one.db));
    // Sanity: some person really holds several ids, so their order was compared.
    expect((order(one.db) as { ids: string }[]).some((r) => r.ids.includes(' '))).toBe(true);
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
});
