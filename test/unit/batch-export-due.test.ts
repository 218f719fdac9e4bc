import { describe, expect, it } from 'vitest';
import type { BackfillRow, BatchExportRow, PauseSpan } from '../../projections/exports';
import { dueBackfillIntervals, dueIntervals } from '../../src/exports/scheduler/due';
import { backfillIntervals, firstEndAfter } from '../../src/exports/model/intervals';

const t = (hhmm: string, day = '2024-05-06') => Date.parse(`${day}T${hhmm}:00Z`);
const iso = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const exp = (over: Partial<BatchExportRow> = {}): BatchExportRow => ({
  id: 'e', seq: 1, project_id: 1, name: 'n', model: 'events', destination_type: 'NoOp', destination_config: {}, interval: 'hour',
  paused: false, created_at: '2024-05-06T10:20:00.000Z', created_by: null, last_updated_at: '', last_paused_at: null,
  start_at: null, end_at: null, hogql_query: null, schema: null, deleted: false, deleted_at: null, ...over,
});
const due = (e: BatchExportRow, now: string, pauses: PauseSpan[] = [], last: string | null = null, limit = 100) =>
  dueIntervals(e, pauses, last, t(now), limit).map((i) => `${iso(i.start)}-${iso(i.end)}`);

describe('dueIntervals', () => {
  it('starts with the first interval ending after creation and covers each whole interval once', () => {
    expect(due(exp(), '10:59')).toEqual([]);
    expect(due(exp(), '11:00')).toEqual(['10:00-11:00']);
    expect(due(exp(), '13:30')).toEqual(['10:00-11:00', '11:00-12:00', '12:00-13:00']);
    expect(due(exp(), '13:30', [], '2024-05-06T12:00:00.000Z')).toEqual(['12:00-13:00']);
    expect(due(exp(), '13:30', [], null, 2)).toEqual(['10:00-11:00', '11:00-12:00']);
  });

  it('skips ends inside a pause, and includes them once the pause ended with backfill', () => {
    const open: PauseSpan = { paused_at: '2024-05-06T11:30:00.000Z', unpaused_at: null, backfill: false };
    expect(due(exp(), '15:00', [open])).toEqual(['10:00-11:00']);
    const closed = { ...open, unpaused_at: '2024-05-06T13:00:00.000Z' };
    expect(due(exp(), '15:00', [closed])).toEqual(['10:00-11:00', '12:00-13:00', '13:00-14:00', '14:00-15:00']);
    expect(due(exp(), '15:00', [{ ...closed, backfill: true }])).toHaveLength(5);
    // An end exactly at the pause is skipped; exactly at the unpause is not.
    expect(due(exp(), '13:00', [{ paused_at: '2024-05-06T11:00:00.000Z', unpaused_at: '2024-05-06T13:00:00.000Z', backfill: false }])).toEqual(['12:00-13:00']);
  });

  it('bounds by start_at and end_at, and never overlaps after the interval grows', () => {
    expect(due(exp({ start_at: '2024-05-06T12:30:00.000Z', end_at: '2024-05-06T14:00:00.000Z' }), '18:00')).toEqual(['12:00-13:00', '13:00-14:00']);
    expect(due(exp({ interval: 'day' }), '23:59', [], '2024-05-06T13:00:00.000Z')).toEqual([]);
    expect(dueIntervals(exp({ interval: 'day' }), [], '2024-05-06T13:00:00.000Z', t('00:10', '2024-05-07'), 10).map((i) => [new Date(i.start).toISOString(), new Date(i.end).toISOString()])).toEqual([
      ['2024-05-06T13:00:00.000Z', '2024-05-07T00:00:00.000Z'],
    ]);
  });

  it('puts week ends on Thursdays 00:00 UTC and 5-minute ends on the 5-minute marks', () => {
    expect(new Date(firstEndAfter(t('10:20'), 7 * 86_400_000)).toISOString()).toBe('2024-05-09T00:00:00.000Z');
    expect(due(exp({ interval: 'every 5 minutes', created_at: '2024-05-06T10:21:00.000Z' }), '10:31')).toEqual(['10:20-10:25', '10:25-10:30']);
  });
});

describe('backfill intervals', () => {
  it('steps from start_at, keeps whole intervals only, and schedules those that have ended', () => {
    expect(backfillIntervals(t('07:30'), t('11:00'), 3_600_000).map(([s, e]) => `${iso(s)}-${iso(e)}`)).toEqual(['07:30-08:30', '08:30-09:30', '09:30-10:30']);
    const row: BackfillRow = { id: 'b', batch_export_id: 'e', project_id: 1, interval: 'hour', start_at: '2024-05-06T07:30:00.000Z', end_at: '2024-05-06T11:00:00.000Z', total_runs: 3, scheduled_runs: 1 };
    expect(dueBackfillIntervals(row, t('09:45'), 10).map((i) => iso(i.end))).toEqual(['09:30']);
    expect(dueBackfillIntervals(row, t('12:00'), 10).map((i) => iso(i.end))).toEqual(['09:30', '10:30']);
  });
});
