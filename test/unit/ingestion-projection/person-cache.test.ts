import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession } from '../../../src/store/sql';
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
async function foldLikeRunner(events: RecordedEvent[], failing: Set<number>, batchSize: number) {
  const { db, store } = freshStore();
  const apply = async (e: RecordedEvent, tx: SqlSession) => {
    await ingestionProjection.apply(e, tx);
    if (failing.has(e.position)) throw new Error(`injected failure at ${e.position}`);
  };
  for (let i = 0; i < events.length; i += batchSize) {
    const batch = events.slice(i, i + batchSize);
    try {
      await store.transaction(async (tx) => {
        for (const e of batch) await apply(e, tx);
      });
      continue;
    } catch {
      ingestionProjection.rolledBack!();
    }
    await store.transaction(async (tx) => {
      for (const e of batch) {
        try {
          await tx.savepoint(() => apply(e, tx));
        } catch {
          ingestionProjection.rolledBack!();
        }
      }
    });
  }
  return db;
}

/** The reference: the plain fold (every person read from its row) of the events that do not fail. */
async function plainFold(events: RecordedEvent[], failing: Set<number>) {
  setPersonCacheEnabled(false);
  try {
    const { db, session } = freshStore();
    for (const e of events) if (!failing.has(e.position)) await ingestionProjection.apply(e, session);
    return db;
  } finally {
    setPersonCacheEnabled(true);
  }
}

describe('person cache', () => {
  afterEach(() => setPersonCacheEnabled(true));

  it('folds random event sequences to the same rows as the plain fold, across rollbacks and savepoints', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { events, failing } = randomLog(seed, 120);
      const expected = await plainFold(events, failing);
      const actual = await foldLikeRunner(events, failing, 1 + (seed % 17));
      for (const { name } of ingestionProjection.tables) {
        expect(rowsOf(actual, name), `seed ${seed}, table ${name}`).toEqual(rowsOf(expected, name));
      }
    }
  });

  it('forgets a person write that was rolled back once told by rolledBack', async () => {
    const log = new LogBuilder();
    const first = log.capture('$pageview', 'u1', { $browser: 'Chrome' });
    const failing = log.capture('$set', 'u1', { $set: { plan: 'pro' } });
    const { db, store, session } = freshStore();
    await ingestionProjection.apply(first, session);
    await expect(
      store.transaction(async (tx) => {
        await ingestionProjection.apply(failing, tx);
        throw new Error('injected');
      }),
    ).rejects.toThrow('injected');
    // Without the hook the cache would still hold the rolled-back plan (and write it back below).
    const next = log.capture('$set', 'u1', { $set: { other: 1 } });
    ingestionProjection.rolledBack!();
    await ingestionProjection.apply(next, session);
    const [person] = rowsOf(db, 'persons') as { properties: string }[];
    expect(JSON.parse(person.properties)).not.toHaveProperty('plan');
    expect(JSON.parse(person.properties)).toMatchObject({ $browser: 'Chrome', other: 1 });
  });

  it('keeps one cache per store: two stores folded by one projection instance, interleaved, never see each other\'s persons', async () => {
    const log = new LogBuilder();
    const a = freshStore();
    const b = freshStore();
    // The same distinct id is the same person uuid in both stores; only store a learns the plan.
    await ingestionProjection.apply(log.capture('$pageview', 'u1', { $browser: 'Chrome' }), a.session);
    await ingestionProjection.apply(log.capture('$pageview', 'u1', { $browser: 'Chrome' }), b.session);
    await a.store.transaction((tx) => ingestionProjection.apply(log.capture('$set', 'u1', { $set: { plan: 'pro' } }), tx));
    await b.store.transaction((tx) => ingestionProjection.apply(log.capture('$set', 'u1', { $set: { other: 1 } }), tx));
    const propertiesIn = (s: typeof a) => JSON.parse((rowsOf(s.db, 'persons') as { properties: string }[])[0].properties);
    expect(propertiesIn(a)).toMatchObject({ plan: 'pro' });
    expect(propertiesIn(b)).not.toHaveProperty('plan');
    expect(propertiesIn(b)).toMatchObject({ other: 1 });
  });
});
