import { CONFIDENCE_LEVEL, P_VALUE_SIGNIFICANCE_LEVEL } from '../constants';
import { normalQuantile, normalSf } from '../special/normal';
import type { Interval } from '../interval';

export interface ProportionComparison {
  /** test rate − control rate. */
  difference: number | null;
  /** Wald (unpooled) interval of the difference. */
  confidence_interval: Interval | null;
  /** Pooled two-proportion z statistic. */
  z: number | null;
  /** Two-sided p-value of the z-test. */
  p_value: number | null;
  significant: boolean;
}

export interface FunnelFrequentist {
  method: 'two_proportion_z_test';
  interval_method: 'wilson';
  confidence_level: number;
  rates: Record<string, number | null>;
  confidence_intervals: Record<string, Interval | null>;
  /** Each test variant against control. */
  comparisons: Record<string, ProportionComparison>;
}

export interface Proportion {
  successes: number;
  total: number;
}

/**
 * Wilson score interval: unlike the Wald interval it stays inside [0, 1] and
 * is not degenerate at 0% or 100% conversion.
 */
export function wilsonInterval({ successes, total }: Proportion, confidence: number): Interval | null {
  if (total === 0) return null;
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const rate = successes / total;
  const z2n = (z * z) / total;
  const centre = (rate + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((rate * (1 - rate)) / total + z2n / (4 * total))) / (1 + z2n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Two-sided two-proportion z-test (pooled SE) and Wald interval of the difference. */
export function twoProportionZTest(test: Proportion, control: Proportion, confidence: number): ProportionComparison {
  if (test.total === 0 || control.total === 0) {
    return { difference: null, confidence_interval: null, z: null, p_value: null, significant: false };
  }
  const pt = test.successes / test.total;
  const pc = control.successes / control.total;
  const difference = pt - pc;
  const pooled = (test.successes + control.successes) / (test.total + control.total);
  const pooledSe = Math.sqrt(pooled * (1 - pooled) * (1 / test.total + 1 / control.total));
  // A zero pooled SE means both rates are 0 or both are 1: no difference at all.
  const z = pooledSe === 0 ? 0 : difference / pooledSe;
  const pValue = Math.min(1, 2 * normalSf(Math.abs(z)));
  const critical = normalQuantile(1 - (1 - confidence) / 2);
  const se = Math.sqrt((pt * (1 - pt)) / test.total + (pc * (1 - pc)) / control.total);
  return {
    difference,
    confidence_interval: [difference - critical * se, difference + critical * se],
    z,
    p_value: pValue,
    significant: pValue < 1 - confidence,
  };
}

export function funnelFrequentist(
  control: { key: string } & Proportion,
  tests: ReadonlyArray<{ key: string } & Proportion>,
): FunnelFrequentist {
  const all = [control, ...tests];
  return {
    method: 'two_proportion_z_test',
    interval_method: 'wilson',
    confidence_level: CONFIDENCE_LEVEL,
    rates: Object.fromEntries(all.map((v) => [v.key, v.total === 0 ? null : v.successes / v.total])),
    confidence_intervals: Object.fromEntries(all.map((v) => [v.key, wilsonInterval(v, CONFIDENCE_LEVEL)])),
    comparisons: Object.fromEntries(
      tests.map((t) => [t.key, twoProportionZTest(t, control, 1 - P_VALUE_SIGNIFICANCE_LEVEL)]),
    ),
  };
}
