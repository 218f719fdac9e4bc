import { describe, expect, it } from 'vitest';
import type { MetricEventRow } from '../../../projections/experiment-metric-queries';
import { resolveConfig } from '../../../src/experiments/query/config';
import { funnelStepsReached, sourceValue } from '../../../src/experiments/query/entity-values';
import { FunnelMetric } from '../../../src/experiments/metrics/schema';

const row = (n: string, minute: number, x: string | number | null = null): MetricEventRow => ({ p: 'p', n, t: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(), x });
const all = { from: 0, to: Number.MAX_SAFE_INTEGER };
const minute = (m: number) => Date.UTC(2026, 0, 1, 0, m);

describe('stats_config resolution (PostHog utils: invalid values fall back to defaults)', () => {
  it('defaults', () => {
    const c = resolveConfig(null);
    expect(c.stats.method).toBe('bayesian');
    expect(c.stats.bayesian).toEqual({ ciLevel: 0.95, differenceType: 'RELATIVE' });
    expect(c.stats.frequentist).toEqual({ alpha: 0.05, differenceType: 'RELATIVE', sequentialTestingEnabled: false, sequentialTuningParameter: 5000 });
    expect(c.stats.cuped.enabled).toBe(false);
    expect(c.cupedLookbackDays).toBe(14);
    expect(c.baselineKey).toBe('control');
  });

  it('reads valid values, clamps the lookback and ignores invalid ones', () => {
    const c = resolveConfig({
      method: 'frequentist',
      frequentist: { alpha: 0.1, difference_type: 'ABSOLUTE', sequential_testing_enabled: true, sequential_tuning_parameter: 0 },
      bayesian: { ci_level: 7 },
      cuped: { enabled: true, lookback_days: 90 },
      baseline_variant_key: 'b',
    });
    expect(c.stats.method).toBe('frequentist');
    expect(c.stats.frequentist).toEqual({ alpha: 0.1, differenceType: 'ABSOLUTE', sequentialTestingEnabled: true, sequentialTuningParameter: 5000 });
    expect(c.stats.bayesian.ciLevel).toBe(0.95);
    expect(c.cupedLookbackDays).toBe(30);
    expect(c.baselineKey).toBe('b');
    expect(resolveConfig({ method: 'magic', cuped: { lookback_days: 0 } }).stats.method).toBe('bayesian');
    expect(resolveConfig({ cuped: { lookback_days: 0 } }).cupedLookbackDays).toBe(1);
  });
});

describe('per-entity values', () => {
  const events = [row('purchase', 1, 10), row('purchase', 2, '2.5'), row('view', 3), row('purchase', 10, 'x')];
  it('total, sum, avg, min, max and dau over a window', () => {
    const source = (math: string) => ({ kind: 'EventsNode' as const, event: 'purchase', math: math as 'sum', math_property: 'amount' });
    expect(sourceValue(source('total'), events, all)).toBe(3);
    expect(sourceValue(source('sum'), events, all)).toBe(12.5);
    expect(sourceValue(source('avg'), events, all)).toBe(6.25);
    expect(sourceValue(source('min'), events, all)).toBe(2.5);
    expect(sourceValue(source('max'), events, all)).toBe(10);
    expect(sourceValue(source('dau'), events, all)).toBe(1);
    expect(sourceValue(source('sum'), events, { from: minute(2), to: minute(10) })).toBe(2.5);
    expect(sourceValue(source('sum'), undefined, all)).toBe(0);
  });

  it('ordered funnels need each step after the previous; unordered ones any order', () => {
    const funnel = FunnelMetric.parse({ kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'view' }, { kind: 'EventsNode', event: 'purchase' }] });
    expect(funnelStepsReached(funnel, events, all)).toBe(2);
    expect(funnelStepsReached(funnel, events, { from: 0, to: minute(5) })).toBe(1);
    const backwards = [row('purchase', 1), row('view', 2)];
    expect(funnelStepsReached(funnel, backwards, all)).toBe(1);
    expect(funnelStepsReached({ ...funnel, funnel_order_type: 'unordered' }, backwards, all)).toBe(2);
  });
});
