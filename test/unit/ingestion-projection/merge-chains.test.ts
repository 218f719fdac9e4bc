import { describe, expect, it } from 'vitest';
import { createIngestionProjection, ingestionProjection, personUuid } from '../../../projections/ingestion';
import type { RecordedEvent } from '../../../streams';
import { count, freshStore, LogBuilder, PROJECT, rowsOf } from './helpers';
import { asRecord, MERGE_SHAPES, mergeShape } from './merge-shapes';

/**
 * The reference: each event of the record folded on its own (the path of a record's parts after a
 * failure), which reads every person from its row and re-points a merged person's ids at once.
 */
async function foldPlain(records: readonly RecordedEvent[]) {
  const s = freshStore();
  const plain = createIngestionProjection();
  for (const record of records) {
    const parts = plain.parts!(record);
    await s.store.transaction(async (tx) => {
      for (let i = 0; i < parts; i++) await plain.applyPart!(record, i, tx);
    });
  }
  return s;
}

describe('ingestion projection: merges inside one record', () => {
  for (const shape of MERGE_SHAPES) {
    it(`${shape}: a record folds to the rows of its events merged one by one (apply and applyAll)`, async () => {
      const events = mergeShape(shape, 60);
      // Split unevenly so merges cross records too, and links made in one record are followed in the
      // next; the one-event record between is folded without a record's reads (from the rows).
      const cuts = [0, 37, 38, 55, events.length];
      const records = cuts.slice(1).map((end, i) => asRecord(events.slice(cuts[i], end), i + 1));
      const plain = await foldPlain(records);
      const whole = freshStore();
      await whole.apply(...records);
      const overlapped = freshStore();
      await overlapped.store.transaction((tx) => ingestionProjection.applyAll!(records, tx));
      for (const table of ingestionProjection.tables) {
        expect(rowsOf(whole.db, table.name), `${shape} ${table.name}`).toEqual(rowsOf(plain.db, table.name));
        expect(rowsOf(overlapped.db, table.name), `${shape} ${table.name} (applyAll)`).toEqual(rowsOf(plain.db, table.name));
      }
    });
  }

  it('an event folded from the rows, between records, sees the merges of the records before it', async () => {
    const log = new LogBuilder();
    const chain = mergeShape('pairs', 20, log);
    const after = [
      log.capture('$pageview', 'a_0', { $set: { seen: 1 } }),
      log.capture('$identify', 'b_9', { $anon_distinct_id: 'fresh' }),
      log.capture('$merge_dangerously', 'other', { alias: 'a_3' }),
      log.capture('$pageview', 'b_0'),
    ];
    // A one-event record is folded without a record's reads: from the rows.
    const records = [asRecord(chain, 1), asRecord(after.slice(0, 1), 2), asRecord(after.slice(1, 2), 3), asRecord(after.slice(2), 4)];
    const plain = await foldPlain(records);
    const overlapped = freshStore();
    await overlapped.store.transaction((tx) => ingestionProjection.applyAll!(records, tx));
    for (const table of ingestionProjection.tables) expect(rowsOf(overlapped.db, table.name), table.name).toEqual(rowsOf(plain.db, table.name));
    expect(count(overlapped.db, 'persons')).toBe(1);
  });

  it('a long chain in one record ends on one person holding every id', async () => {
    const events = mergeShape('pairs', 4000);
    const { db, q, store } = freshStore();
    await store.transaction((tx) => ingestionProjection.applyAll!([asRecord(events)], tx));
    expect(count(db, 'persons')).toBe(1);
    expect(count(db, 'person_distinct_ids')).toBe(4000);
    const person = await q.personByDistinctId(PROJECT, 'a_0');
    expect(person?.uuid).toBe(personUuid(PROJECT, 'b_1999'));
    expect(new Set((db.prepare('SELECT person_id FROM person_distinct_ids').all() as { person_id: string }[]).map((r) => r.person_id))).toEqual(
      new Set([person!.uuid]),
    );
  });
});
