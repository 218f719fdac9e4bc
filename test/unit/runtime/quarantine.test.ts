import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { QuarantinedEvent } from '../../../src/store/runner';
import { SqliteReadModelStore, sqliteTableDdl } from '../../../src/adapters/sqlite/read-models';
import {
  combineSummaries,
  forgetQuarantines,
  insertQuarantine,
  LATEST_QUARANTINES,
  mergeSummary,
  QUARANTINE_SCHEMA,
  quarantineRecord,
  quarantineRows,
  quarantineSummary,
} from '../../../src/runtime/quarantine';

const q = (projection: string, position: number, part: number | null = null): QuarantinedEvent => ({
  projection,
  position,
  part,
  stream_id: 's',
  event_type: 'T',
  project_id: 1,
  recorded_at: '2024-01-01T00:00:00.000Z',
  error: `e${position}/${part}`,
});

const event = (position: number, projectId: number | null): RecordedEvent => ({
  position,
  streamId: 'ingest-3',
  revision: 0,
  type: 'Noted',
  schemaVersion: 1,
  data: {},
  metadata: { eventId: 'e', recordedAt: '2024-06-01T00:00:00.000Z', projectId, actor: { type: 'system' }, causationId: null, correlationId: null },
});

describe('quarantine records', () => {
  it('carry the event, the part and the error, the event time and no clock', () => {
    expect(quarantineRecord('p', event(4, 3), 2, new TypeError('bad'))).toEqual({
      projection: 'p',
      position: 4,
      part: 2,
      stream_id: 'ingest-3',
      event_type: 'Noted',
      project_id: 3,
      recorded_at: '2024-06-01T00:00:00.000Z',
      error: 'TypeError: bad',
    });
    expect(quarantineRecord('p', event(4, null), null, 42)).toMatchObject({ project_id: null, part: null, error: '42' });
  });

  it('cut long messages at 500 characters, and only long ones', () => {
    expect(quarantineRecord('p', event(1, 1), null, 'y'.repeat(500)).error).toBe('y'.repeat(500));
    expect(quarantineRecord('p', event(1, 1), null, 'y'.repeat(501)).error).toBe('y'.repeat(500));
  });
});

describe('quarantine summaries', () => {
  it('mergeSummary puts fresh records first, newest first, and keeps ten', () => {
    const summary = { count: 2, latest: [q('p', 2), q('p', 1)] };
    expect(mergeSummary(summary, [])).toBe(summary);
    const merged = mergeSummary(summary, [q('p', 3), q('p', 4)]);
    expect(merged.count).toBe(4);
    expect(merged.latest.map((r) => r.position)).toEqual([4, 3, 2, 1]);
    const many = mergeSummary(summary, Array.from({ length: 12 }, (_, i) => q('p', 10 + i)));
    expect(many.count).toBe(14);
    expect(many.latest).toHaveLength(LATEST_QUARANTINES);
    expect(many.latest[0].position).toBe(21);
    expect(LATEST_QUARANTINES).toBe(10);
  });

  it('combineSummaries adds counts and orders by position then part, newest first, keeping ten', () => {
    const a = { count: 5, latest: [q('a', 7, 1), q('a', 3)] };
    const b = { count: 1, latest: [q('b', 7, null), q('b', 7, 2), q('b', 9)] };
    const combined = combineSummaries([a, b]);
    expect(combined.count).toBe(6);
    expect(combined.latest.map((r) => `${r.projection}${r.position}/${r.part}`)).toEqual(['b9/null', 'b7/2', 'a7/1', 'b7/null', 'a3/null']);
    expect(combineSummaries([])).toEqual({ count: 0, latest: [] });
    // A whole record (no part) sorts below its parts, whichever side it is on.
    const parts = [q('a', 4, null), q('a', 4, 0)];
    expect(combineSummaries([{ count: 2, latest: parts }]).latest.map((r) => r.part)).toEqual([0, null]);
    expect(combineSummaries([{ count: 2, latest: [...parts].reverse() }]).latest.map((r) => r.part)).toEqual([0, null]);
    const big = combineSummaries([{ count: 12, latest: Array.from({ length: 12 }, (_, i) => q('a', i)) }]);
    expect(big.latest).toHaveLength(10);
    expect(big.latest[9].position).toBe(2);
  });
});

describe('the quarantine table', () => {
  it('summarises, lists in order and forgets one projection’s rows', async () => {
    const sqlite = new Database(':memory:');
    for (const statement of sqliteTableDdl(QUARANTINE_SCHEMA)) sqlite.exec(statement);
    const db = new SqliteReadModelStore(sqlite).session;
    for (const r of [q('p', 3, 1), q('p', 1), q('p', 3, 0), q('other', 2)]) await insertQuarantine(db, r);
    for (let i = 0; i < 11; i++) await insertQuarantine(db, q('many', i));
    const summary = await quarantineSummary(db, 'p');
    expect(summary.count).toBe(3);
    expect(summary.latest).toEqual([q('p', 3, 1), q('p', 3, 0), q('p', 1)]);
    expect((await quarantineSummary(db, 'many')).latest).toHaveLength(10);
    expect((await quarantineSummary(db, 'many')).count).toBe(11);
    expect(await quarantineSummary(db, 'nobody')).toEqual({ count: 0, latest: [] });
    expect(await quarantineRows(db, 'p')).toEqual([
      [1, null, 's', 'T', 1, '2024-01-01T00:00:00.000Z', 'e1/null'],
      [3, 0, 's', 'T', 1, '2024-01-01T00:00:00.000Z', 'e3/0'],
      [3, 1, 's', 'T', 1, '2024-01-01T00:00:00.000Z', 'e3/1'],
    ]);
    await forgetQuarantines(db, 'p');
    expect(await quarantineRows(db, 'p')).toEqual([]);
    expect((await quarantineSummary(db, 'other')).count).toBe(1);
  });
});
