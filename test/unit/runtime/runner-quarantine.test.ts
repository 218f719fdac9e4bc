import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { QuarantinedEvent } from '../../../src/store/runner';
import type { SqlSession } from '../../../src/store/sql';
import { markStorageFault } from '../../../src/store/storage-fault';
import { misbehave, openFiles, recorder, type Noted } from './runner-harness';

const QUARANTINED = 'SELECT projection, position, part, stream_id, event_type, project_id, error FROM projection_failures ORDER BY position, part';

describe('an event the projection cannot apply', () => {
  it('is quarantined with its writes rolled back, and the batch goes on', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2, throws: 'no good' });
    f.note({ n: 3 });
    const told: QuarantinedEvent[] = [];
    const projection = recorder();
    const runner = f.runner([projection], { onQuarantine: (q) => told.push(q) });
    await runner.catchUp();
    expect(f.rows('SELECT n FROM seen ORDER BY position')).toEqual([{ n: 1 }, { n: 3 }]);
    expect(runner.checkpoints()).toEqual({ recorder: 3 });
    expect(runner.failures()).toEqual({});
    const row = { projection: 'recorder', position: 2, part: null, stream_id: 'notes', event_type: 'Noted', project_id: 7, error: 'RangeError: no good' };
    expect(f.rows(QUARANTINED)).toEqual([row]);
    expect(told).toEqual([expect.objectContaining(row)]);
    expect(told[0].recorded_at).toMatch(/^\d{4}-/);
    expect(runner.quarantines()).toEqual({ count: 1, latest: [expect.objectContaining(row)] });
    // The batch's transaction, and the event's savepoint.
    expect(projection.rolledBackCalls).toBe(2);
  });

  it('records what was thrown: an Error by name and message (cut), else its text', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'undefined' });
    f.note({ n: 2, throws: 'string' });
    f.note({ n: 3, throws: 'x', long: true });
    const runner = f.runner([recorder()]);
    await runner.catchUp();
    const errors = (f.rows('SELECT error FROM projection_failures ORDER BY position') as { error: string }[]).map((r) => r.error);
    expect(errors[0]).toBe('Error: undefined thrown');
    expect(errors[1]).toBe('a bare string');
    expect(errors[2]).toBe(`RangeError: ${'x'.repeat(488)}`);
    expect(errors[2]).toHaveLength(500);
    expect(runner.quarantines().count).toBe(3);
    expect(runner.quarantines().latest.map((q) => q.position)).toEqual([3, 2, 1]);
  });

  it('is applied part by part when the projection has parts: only the parts that throw are quarantined', async () => {
    const f = openFiles();
    f.note({ n: 1, items: ['ok', 'bad', 'ok', 'bad'] });
    f.note({ n: 2, items: [] , throws: 'whole' });
    const quarantinedCalls: [number, number | null, string][] = [];
    const projection = recorder({
      tables: [{ name: 'parts', columns: { position: 'integer', part: 'integer' }, primaryKey: ['position', 'part'], orderBy: 'position, part' }],
      async apply(event: RecordedEvent, db: SqlSession) {
        const { items } = event.data as Noted;
        for (let i = 0; i < items!.length; i++) await projection.applyPart!(event, i, db);
        await misbehave(event);
      },
      parts: (event: RecordedEvent) => (event.data as Noted).items!.length,
      async applyPart(event: RecordedEvent, index: number, db: SqlSession) {
        await db.run('INSERT INTO parts (position, part) VALUES (?, ?)', event.position, index);
        if ((event.data as Noted).items![index] === 'bad') throw new TypeError(`bad item ${index}`);
      },
      async quarantined(event: RecordedEvent, part: number | null, error: string, db: SqlSession) {
        quarantinedCalls.push([event.position, part, error]);
        // In the transaction that skips the event: its writes here stay.
        await db.run('INSERT INTO parts (position, part) VALUES (?, ?)', -event.position, part ?? -1);
      },
    });
    const runner = f.runner([projection]);
    await runner.catchUp();
    expect(f.rows('SELECT position, part FROM parts ORDER BY position, part')).toEqual([
      { position: -2, part: -1 },
      { position: -1, part: 1 },
      { position: -1, part: 3 },
      { position: 1, part: 0 },
      { position: 1, part: 2 },
    ]);
    expect(quarantinedCalls).toEqual([
      [1, 1, 'TypeError: bad item 1'],
      [1, 3, 'TypeError: bad item 3'],
      [2, null, 'RangeError: whole'],
    ]);
    expect((f.rows(QUARANTINED) as QuarantinedEvent[]).map((q) => [q.position, q.part])).toEqual([
      [1, 1],
      [1, 3],
      [2, null],
    ]);
    expect(runner.quarantines().latest.map((q) => [q.position, q.part])).toEqual([
      [2, null],
      [1, 3],
      [1, 1],
    ]);
  });

  it('a projection with parts but no applyPart quarantines the whole event', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'whole' });
    const runner = f.runner([recorder({ parts: () => 3 })]);
    await runner.catchUp();
    expect((f.rows(QUARANTINED) as QuarantinedEvent[]).map((q) => [q.position, q.part])).toEqual([[1, null]]);
  });

  it('a projection that keeps nothing in memory is quarantined and stopped alike', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'bad' });
    f.note({ n: 2 });
    const quiet = f.runner([recorder({ rolledBack: undefined })]);
    await quiet.catchUp();
    expect(quiet.quarantines().latest.map((q) => q.position)).toEqual([1]);
    expect(f.rows('SELECT n FROM seen')).toEqual([{ n: 2 }]);

    const g = openFiles();
    g.note({ n: 1, throws: 'first attempt' });
    let attempts = 0;
    const faulty = g.runner([recorder({
      rolledBack: undefined,
      async apply() {
        if (++attempts === 1) throw new Error('first attempt');
        throw markStorageFault(new Error('disk gone'));
      },
    })]);
    await faulty.catchUp();
    expect(faulty.failures()).toEqual({ recorder: 'disk gone' });
  });

  it('a projection with applyPart but no parts quarantines the whole event', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'whole' });
    const runner = f.runner([recorder({ applyPart: async () => undefined })]);
    await runner.catchUp();
    expect((f.rows(QUARANTINED) as QuarantinedEvent[]).map((q) => [q.position, q.part])).toEqual([[1, null]]);
  });

  it('quarantines the same events however the log is cut into batches, and a restart reads the summary back', async () => {
    const f = openFiles();
    for (let n = 1; n <= 14; n++) f.note({ n, throws: n % 3 === 0 ? `bad ${n}` : undefined });
    const whole = f.runner([recorder()], { batchSize: 100 });
    await whole.catchUp();
    const cut = openFiles(f.dir);
    for (let n = 1; n <= 14; n++) cut.note({ n, throws: n % 3 === 0 ? `bad ${n}` : undefined });
    const small = cut.runner([recorder()], { batchSize: 2 });
    await small.catchUp();
    expect(cut.rows(QUARANTINED)).toEqual(f.rows(QUARANTINED));
    expect(cut.rows('SELECT * FROM seen ORDER BY position')).toEqual(f.rows('SELECT * FROM seen ORDER BY position'));
    const timeless = (s: { count: number; latest: QuarantinedEvent[] }) => ({ ...s, latest: s.latest.map(({ recorded_at: _, ...q }) => q) });
    expect(timeless(small.quarantines())).toEqual(timeless(whole.quarantines()));
    // Read back from the table at start, newest first.
    const again = f.runner([recorder()]);
    await again.ready;
    expect(again.quarantines()).toEqual(whole.quarantines());
    expect(again.quarantines().latest.map((q) => q.position)).toEqual([12, 9, 6, 3]);
  });

  it('a storage fault stops the projection instead of quarantining the event, and nothing of its batch is kept', async () => {
    const f = openFiles();
    f.note({ n: 1 });
    f.note({ n: 2, throws: 'fault' });
    const errors: string[] = [];
    const projection = recorder();
    const runner = f.runner([projection], { onError: (name, err) => errors.push(`${name}: ${err.message}`) });
    await runner.catchUp();
    expect(errors).toEqual(['recorder: disk I/O error']);
    expect(f.rows('SELECT count(*) AS c FROM seen')).toEqual([{ c: 0 }]);
    expect(f.rows(QUARANTINED)).toEqual([]);
    expect(runner.checkpoints()).toEqual({ recorder: 0 });
    // Rolled back once: the event is not tried again alone.
    expect(projection.rolledBackCalls).toBe(1);
  });

  it('a storage fault met while isolating the failing event stops the projection too', async () => {
    const f = openFiles();
    f.note({ n: 1, throws: 'first attempt' });
    let attempts = 0;
    const projection = recorder({
      async apply(event: RecordedEvent) {
        attempts++;
        if (attempts === 1) throw new Error('first attempt');
        throw (await import('../../../src/store/storage-fault')).markStorageFault(new Error('disk gone'));
      },
    });
    const runner = f.runner([projection]);
    await runner.catchUp();
    expect(runner.failures()).toEqual({ recorder: 'disk gone' });
    expect(f.rows(QUARANTINED)).toEqual([]);
    expect(projection.rolledBackCalls).toBe(3);
  });
});
