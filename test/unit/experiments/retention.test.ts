import { describe, expect, it } from 'vitest';
import type { MetricEventRow } from '../../../src/store/analytics';
import { retentionOf, type RetentionWindow } from '../../../src/experiments/query/retention';

// The cases of PostHog's retention metric tests (posthog/hogql_queries/experiments/test/
// experiment_query_runner/test_experiment_retention_metric.py), one user at a time, written from
// the facts they state; plus the start-equals-completion and calendar-month rules of its query builder.
const H = 3_600_000;
const D = 24 * H;
const exposedAt = Date.parse('2024-01-02T12:00:00Z');
const range = { from: Date.parse('2024-01-01T00:00:00Z'), to: Date.parse('2024-03-31T00:00:00Z') };
const row = (n: string, at: number): MetricEventRow => ({ p: 'u', n, t: new Date(at).toISOString(), x: null });
const named = (name: string) => (r: MetricEventRow) => r.n === name;
const window = (w: Partial<RetentionWindow>): RetentionWindow => ({ start: 1, end: 7, unit: 'day', handling: 'first_seen', conversionMs: null, ...w });
const sorted = (rows: MetricEventRow[]) => [...rows].sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
const retained = (rows: MetricEventRow[], w: RetentionWindow, start = 'signup', completion = 'login') =>
  retentionOf(sorted(rows), exposedAt, range, w, { start: named(start), completion: named(completion) });

describe('retention metric (PostHog test_experiment_retention_metric)', () => {
  it('a start then a completion on day 3 of a [1, 7] day window retains; no completion does not; no start is not counted', () => {
    const signup = row('signup', exposedAt + 60_000);
    expect(retained([signup, row('login', Date.parse('2024-01-05T12:00:00Z'))], window({}))).toBe(1);
    expect(retained([signup], window({}))).toBe(0);
    expect(retained([row('login', Date.parse('2024-01-05T12:00:00Z'))], window({}))).toBeNull();
  });

  it('window [7, 14] days: day 5 and day 20 are out, days 7, 10, 13 and 14 are in (by calendar day, both ends)', () => {
    const signup = exposedAt + 60_000;
    const at = (days: number) => retained([row('signup', signup), row('return', signup + days * D)], window({ start: 7, end: 14 }), 'signup', 'return');
    expect([5, 7, 10, 13, 14, 20].map(at)).toEqual([0, 1, 1, 1, 1, 0]);
  });

  it('first_seen and last_seen measure from the first or the last start event', () => {
    const rows = [row('signup', exposedAt + 60_000), row('signup', exposedAt + 3 * D), row('purchase', exposedAt + 4 * D)];
    expect(retained(rows, window({ start: 1, end: 2, handling: 'first_seen' }), 'signup', 'purchase')).toBe(0);
    expect(retained(rows, window({ start: 1, end: 2, handling: 'last_seen' }), 'signup', 'purchase')).toBe(1);
  });

  it('a conversion window bounds the start event after the exposure (its end included); the retention window runs from the start', () => {
    const user = (hoursToSignup: number) =>
      retained([row('signup', exposedAt + hoursToSignup * H), row('return_visit', Date.parse('2024-01-04T14:00:00Z'))], window({ start: 1, end: 3, conversionMs: 2 * H }), 'signup', 'return_visit');
    expect([1, 1.5, 2, 2.5, 3].map(user)).toEqual([1, 1, 1, null, null]);
  });

  it('[0, 0] days: a completion later the same calendar day retains, the next day does not', () => {
    const start = Date.parse('2024-01-02T10:00:00Z');
    const at = (hours: number) => retentionOf([row('signup', start), row('first_action', start + hours * H)], start, range, window({ start: 0, end: 0 }), { start: named('signup'), completion: named('first_action') });
    expect([2, 8, 13, 24, 48].map(at)).toEqual([1, 1, 1, 0, 0]);
  });

  it('[0, 0] hours: the same clock hour retains (the same minute too), the next hour does not', () => {
    const at = (startMinute: number, offset: number) => {
      const start = Date.parse('2024-01-02T10:00:00Z') + startMinute * 60_000;
      return retentionOf([row('session_start', start), row('key_action', start + offset * 60_000)], start, range, window({ start: 0, end: 0, unit: 'hour' }), {
        start: named('session_start'),
        completion: named('key_action'),
      });
    };
    expect([at(10, 5), at(15, 30), at(55, 4), at(59, 2), at(0, 0), at(45, 60)]).toEqual([1, 1, 1, 0, 1, 0]);
  });

  it('several completions in the window count once; a start before the exposure is not a start', () => {
    const signup = exposedAt + 60_000;
    expect(retained([row('signup', signup), ...[3, 5, 7].map((d) => row('purchase', signup + d * D))], window({}), 'signup', 'purchase')).toBe(1);
    expect(retained([row('signup', exposedAt - H), row('purchase', exposedAt + 2 * D)], window({}), 'signup', 'purchase')).toBeNull();
  });

  it('a completion before the start, even on the same day, does not count (the join is on later events)', () => {
    const start = exposedAt + 5 * H;
    expect(retained([row('login', exposedAt + H), row('signup', start)], window({ start: 0, end: 0 }))).toBe(0);
  });

  it('the same event as start and completion: the start occurrence is not its own completion', () => {
    const first = exposedAt + H;
    const w = window({ start: 0, end: 0 });
    expect(retained([row('app_open', first)], w, 'app_open', 'app_open')).toBe(0);
    expect(retained([row('app_open', first), row('app_open', first + H)], w, 'app_open', 'app_open')).toBe(1);
  });

  it('months are calendar months, clamped to the month end (Jan 31 + 1 month = Feb 29 in 2024); not truncated', () => {
    const start = Date.parse('2024-01-31T10:00:00Z');
    const at = (iso: string) => retentionOf([row('signup', start), row('renew', Date.parse(iso))], start, range, window({ start: 0, end: 1, unit: 'month' }), { start: named('signup'), completion: named('renew') });
    expect([at('2024-02-29T10:00:00Z'), at('2024-02-29T10:00:01Z'), at('2024-03-01T09:00:00Z')]).toEqual([1, 0, 0]);
  });
});
