import { describe, expect, it } from 'vitest';
import type { FunnelRow } from '../../../projections/experiments-results-queries';
import { DomainError } from '../../../src/errors';
import { funnelCounts, parseMetric } from '../../../src/experiments';

const DAY = 86_400_000;
const t = (minutes: number) => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
type Row = Omit<FunnelRow, 's'> & { e: string };
const row = (p: string, e: string, minutes: number, v: string | null = null): Row => ({ p, e, t: t(minutes), v });
/** Rows name their event by its first step index, as the query returns them. */
const counts = (rows: Row[], steps = ['view', 'buy'], windowMs = 14 * DAY) =>
  Object.fromEntries(funnelCounts(rows.map(({ e, ...r }) => ({ ...r, s: steps.indexOf(e) })), steps, windowMs, ['control', 'test']));

describe('funnelCounts', () => {
  it('counts a person once, in the variant of their first attributed first step', () => {
    expect(
      counts([
        row('a', 'view', 0, 'test'),
        row('a', 'view', 5, 'control'),
        row('a', 'buy', 10),
        row('a', 'buy', 11),
        row('b', 'view', 0, 'control'),
        row('c', 'buy', 0), // never entered
        row('d', 'view', 0, 'other'), // not one of the experiment's variants
        row('e', 'view', 0, null),
        row('e', 'view', 1, 'control'),
        row('e', 'buy', 2),
      ]),
    ).toEqual({ test: { success: 1, failure: 0 }, control: { success: 1, failure: 1 } });
  });

  it('starts attempts only at first steps that carry the attributed variant (not another flag\'s events)', () => {
    expect(counts([row('a', 'view', 0, null), row('a', 'buy', 1), row('a', 'view', 2, 'test')]).test).toEqual({ success: 0, failure: 1 });
    expect(counts([row('a', 'view', 0, 'test'), row('a', 'view', 1, 'control'), row('a', 'buy', 2)]).test).toEqual({ success: 1, failure: 0 });
  });

  it('needs the steps in order, and counts simultaneous steps as in order', () => {
    expect(counts([row('a', 'buy', 0), row('a', 'view', 1, 'test')])).toEqual({ control: { success: 0, failure: 0 }, test: { success: 0, failure: 1 } });
    expect(counts([row('a', 'buy', 0), row('a', 'view', 0, 'test')])).toEqual({ control: { success: 0, failure: 0 }, test: { success: 1, failure: 0 } });
  });

  it('respects the conversion window, trying later starts when an early one runs out of time', () => {
    const window = 60 * 60_000;
    expect(counts([row('a', 'view', 0, 'test'), row('a', 'buy', 61)], ['view', 'buy'], window).test).toEqual({ success: 0, failure: 1 });
    expect(counts([row('a', 'view', 0, 'test'), row('a', 'view', 30, 'test'), row('a', 'buy', 61)], ['view', 'buy'], window).test).toEqual({ success: 1, failure: 0 });
  });

  it('handles repeated step names and three steps', () => {
    const steps = ['view', 'view', 'buy'];
    expect(counts([row('a', 'view', 0, 'control'), row('a', 'buy', 1)], steps).control).toEqual({ success: 0, failure: 1 });
    expect(counts([row('a', 'view', 0, 'control'), row('a', 'view', 1), row('a', 'buy', 2)], steps).control).toEqual({ success: 1, failure: 0 });
  });
});

describe('parseMetric', () => {
  it('reads funnels (ordered steps, window) and trends (first event, math)', () => {
    expect(
      parseMetric({ insight: 'FUNNELS', events: [{ id: 'b', order: 1 }, { id: 'a', order: 0 }], funnel_window_interval: 2, funnel_window_interval_unit: 'hour' }),
    ).toEqual({ insight: 'FUNNELS', steps: ['a', 'b'], windowMs: 2 * 3_600_000 });
    expect(parseMetric({ insight: 'funnels', events: [{ id: 'a' }, { id: 'b' }], funnel_window_days: 3 })).toMatchObject({ windowMs: 3 * DAY });
    expect(parseMetric({ insight: 'FUNNELS', events: [{ id: 'a' }, { id: 'b' }] })).toMatchObject({ windowMs: 14 * DAY });
    expect(parseMetric({ events: [{ id: 'click', math: 'dau' }] })).toEqual({ insight: 'TRENDS', event: 'click', math: 'dau' });
    expect(parseMetric({ insight: 'TRENDS', events: [{ id: 'click' }] })).toEqual({ insight: 'TRENDS', event: 'click', math: 'total' });
  });

  it.each([
    [{}, /needs an event/],
    [{ insight: 'FUNNELS', events: [{ id: 'a' }] }, /at least two steps/],
    [{ insight: 'RETENTION', events: [{ id: 'a' }] }, /Unsupported metric insight/],
    [{ events: [{ id: 'a', math: 'sum' }] }, /Unsupported trend math/],
    [{ events: [{ id: 'a' }], actions: [{ id: 1 }] }, /Actions are not supported/],
    [{ events: [{ id: 'a', properties: [{ key: 'x', value: 1 }] }] }, /property filters/],
    [{ events: [{ name: 'a' }] }, /event name/],
  ])('refuses %j', (filters, message) => {
    let caught: unknown;
    try {
      parseMetric(filters);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).message).toMatch(message);
    expect((caught as DomainError).attr).toBe('filters');
  });
});
