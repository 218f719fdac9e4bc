import { SRM_P_VALUE_THRESHOLD } from './constants';
import { ExperimentStatsError } from './errors';
import { gammaQ } from './special/incomplete-gamma';

export interface ChiSquareResult {
  /** Null when a cell with zero expected share received observations (statistic is infinite). */
  statistic: number | null;
  degrees_of_freedom: number;
  p_value: number;
}

/**
 * Pearson chi-square goodness-of-fit of observed counts against expected
 * proportions (any positive scale; normalised here). Cells expected to be
 * empty and observed empty carry no information and are dropped.
 */
export function chiSquareGoodnessOfFit(observed: readonly number[], proportions: readonly number[]): ChiSquareResult {
  const weight = proportions.reduce((sum, p) => sum + p, 0);
  const total = observed.reduce((sum, o) => sum + o, 0);
  let statistic = 0;
  let cells = 0;
  for (let i = 0; i < observed.length; i++) {
    const expected = (total * proportions[i]) / weight;
    if (proportions[i] === 0) {
      if (observed[i] > 0) return { statistic: null, degrees_of_freedom: observed.length - 1, p_value: 0 };
      continue;
    }
    cells += 1;
    if (expected > 0) statistic += (observed[i] - expected) ** 2 / expected;
  }
  const df = Math.max(0, cells - 1);
  return { statistic, degrees_of_freedom: df, p_value: df === 0 ? 1 : gammaQ(df / 2, statistic / 2) };
}

export interface SampleRatioMismatch {
  test: 'chi_square_goodness_of_fit';
  threshold: number;
  observed: Record<string, number>;
  expected: Record<string, number>;
  expected_percentages: Record<string, number>;
  chi_square: number | null;
  degrees_of_freedom: number;
  p_value: number;
  /** True when p < threshold: exposures do not match the configured split. */
  mismatch: boolean;
}

function validateSplit(split: Readonly<Record<string, number>>): void {
  const values = Object.values(split);
  if (values.some((v) => typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
    throw new ExperimentStatsError('invalid_input', 'Split percentages must be finite and non-negative');
  }
  if (!(values.reduce((sum, v) => sum + v, 0) > 0)) {
    throw new ExperimentStatsError('invalid_input', 'Split percentages must not all be zero');
  }
}

/** The observed exposures: `override` when given, else the defaults. */
export function srmObservations(
  defaults: ReadonlyArray<{ key: string; exposure: number }>,
  override?: Readonly<Record<string, number>>,
): Array<{ key: string; exposure: number }> {
  if (!override) return defaults.map(({ key, exposure }) => ({ key, exposure }));
  return Object.entries(override).map(([key, exposure]) => {
    if (typeof exposure !== 'number' || !Number.isFinite(exposure) || exposure < 0) {
      throw new ExperimentStatsError('invalid_input', `exposure of ${key} must be a finite non-negative number`);
    }
    return { key, exposure };
  });
}

/**
 * Sample-ratio-mismatch check of exposures per variant against the configured
 * split (percent). Variants only in the split count as observed 0; variants
 * missing from the split are expected to get 0%.
 */
export function sampleRatioMismatch(
  exposures: ReadonlyArray<{ key: string; exposure: number }>,
  split?: Readonly<Record<string, number>>,
): SampleRatioMismatch {
  const shares = split ?? Object.fromEntries(exposures.map((v) => [v.key, 1]));
  validateSplit(shares);
  const keys = [...new Set([...exposures.map((v) => v.key), ...Object.keys(shares)])];
  const observedByKey = new Map(exposures.map((v) => [v.key, v.exposure]));
  const observed = keys.map((k) => observedByKey.get(k) ?? 0);
  const weights = keys.map((k) => (Object.hasOwn(shares, k) ? shares[k] : 0));
  const weight = weights.reduce((sum, w) => sum + w, 0);
  const total = observed.reduce((sum, o) => sum + o, 0);
  const fit = chiSquareGoodnessOfFit(observed, weights);
  return {
    test: 'chi_square_goodness_of_fit',
    threshold: SRM_P_VALUE_THRESHOLD,
    observed: Object.fromEntries(keys.map((k, i) => [k, observed[i]])),
    expected: Object.fromEntries(keys.map((k, i) => [k, (total * weights[i]) / weight])),
    expected_percentages: Object.fromEntries(keys.map((k, i) => [k, (100 * weights[i]) / weight])),
    chi_square: fit.statistic,
    degrees_of_freedom: fit.degrees_of_freedom,
    p_value: fit.p_value,
    mismatch: fit.p_value < SRM_P_VALUE_THRESHOLD,
  };
}
