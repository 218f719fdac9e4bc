import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import { ingestionProjection } from '../../../projections/ingestion';
import { setPersonCacheEnabled } from '../../../projections/ingestion/person-cache';
import { freshStore, LogBuilder, rowsOf } from './helpers';

/** A small seeded generator (mulberry32), so a failing sequence can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const IDS = ['u1', 'u2', 'u3', 'anon1', 'anon2', 'anon3'];
const KEYS = ['plan', 'email', '$browser', '$current_url', 'utm_source', '$initial_os'];

/** Random events mixing everything that touches a person: lifting, $set/$set_once/$unset, merges, personless. */
function randomLog(seed: number, length: number): { events: RecordedEvent[]; failing: Set<number> } {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const value = () => pick(['a', 'b', 1, null, { nested: pick([1, 2]) }, [1, 2]]);
  const bag = () => Object.fromEntries(KEYS.filter(() => rnd() < 0.3).map((k) => [k, value()]));
  const log = new LogBuilder();
  const events: RecordedEvent[] = [];
  const failing = new Set<number>();
  for (let i = 0; i < length; i++) {
    const id = pick(IDS);
    const r = rnd();
    const props: Record<string, unknown> =
      rnd() < 0.7 ? { $current_url: `https://x.test/${Math.floor(rnd() * 3)}`, $browser: pick(['Chrome', 'Firefox']), $os: 'Linux' } : {};
    if (rnd() < 0.3) props.$set = bag();
    if (rnd() < 0.2) props.$set_once = bag();
    if (rnd() < 0.1) props.$unset = KEYS.filter(() => rnd() < 0.3);
    if (rnd() < 0.05) props.$process_person_profile = false;
    let event = '$pageview';
    if (r < 0.1) [event, props.$anon_distinct_id] = ['$identify', pick(IDS)];
    else if (r < 0.15) [event, props.alias] = ['$create_alias', pick(IDS)];
    else if (r < 0.18) [event, props.alias] = ['$merge_dangerously', pick(IDS)];
    else if (r < 0.25) event = '$set';
    const recorded = log.capture(event, id, props);
    if (rnd() < 0.12) failing.add(recorded.position);
    events.push(recorded);
  }
  return { events, failing };
}

/**
 * As the runner does: each batch in one transaction; when it throws, rolled back and re-applied event
 * by event in savepoints, skipping the ones that throw. An event in `failing` throws after it was
 * folded, so its person writes (and their cached copies) must vanish with the rollback.
 */
function foldLikeRunner(events: RecordedEvent[], failing: Set<number>, batchSize: number) {
  const { sqlite, db } = freshStore();
  const apply = (e: RecordedEvent) => {
    ingestionProjection.apply(e, db);
    if (failing.has(e.position)) throw new Error(`injected failure at ${e.position}`);
  };
  const savepoint = sqlite.transaction((e: RecordedEvent) => apply(e));
  for (let i = 0; i < events.length; i += batchSize) {
    const batch = events.slice(i, i + batchSize);
    try {
      sqlite.transaction(() => batch.forEach(apply))();
      continue;
    } catch {
      ingestionProjection.rolledBack!(db);
    }
    sqlite.transaction(() => {
      for (const e of batch) {
        try {
          savepoint(e);
        } catch {
          ingestionProjection.rolledBack!(db);
        }
      }
    })();
  }
  return db;
}

/** The reference: the plain fold (every person read from its row) of the events that do not fail. */
function plainFold(events: RecordedEvent[], failing: Set<number>) {
  setPersonCacheEnabled(false);
  try {
    const { db } = freshStore();
    for (const e of events) if (!failing.has(e.position)) ingestionProjection.apply(e, db);
    return db;
  } finally {
    setPersonCacheEnabled(true);
  }
}

describe('person cache', () => {
  afterEach(() => setPersonCacheEnabled(true));

  it('folds random event sequences to the same rows as the plain fold, across rollbacks and savepoints', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { events, failing } = randomLog(seed, 120);
      const expected = plainFold(events, failing);
      const actual = foldLikeRunner(events, failing, 1 + (seed % 17));
      for (const { name } of ingestionProjection.tables) {
        expect(rowsOf(actual, name), `seed ${seed}, table ${name}`).toEqual(rowsOf(expected, name));
      }
    }
  });

  it('forgets a person write that was rolled back once told by rolledBack', () => {
    const log = new LogBuilder();
    const first = log.capture('$pageview', 'u1', { $browser: 'Chrome' });
    const failing = log.capture('$set', 'u1', { $set: { plan: 'pro' } });
    const { sqlite, db } = freshStore();
    ingestionProjection.apply(first, db);
    expect(() =>
      sqlite.transaction(() => {
        ingestionProjection.apply(failing, db);
        throw new Error('injected');
      })(),
    ).toThrow('injected');
    // Without the hook the cache would still hold the rolled-back plan (and write it back below).
    const next = log.capture('$set', 'u1', { $set: { other: 1 } });
    ingestionProjection.rolledBack!(db);
    ingestionProjection.apply(next, db);
    const [person] = rowsOf(db, 'persons') as { properties: string }[];
    expect(JSON.parse(person.properties)).not.toHaveProperty('plan');
    expect(JSON.parse(person.properties)).toMatchObject({ $browser: 'Chrome', other: 1 });
  });
});
