import type { StatsConfig } from '../../stats/v2';
import { DEFAULT_SEQUENTIAL_TUNING } from '../../stats/v2';

/** The statistics settings an experiment's `stats_config` asks for, with PostHog's fallbacks. */
export interface ResolvedConfig {
  stats: StatsConfig;
  cupedLookbackDays: number;
  baselineKey: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const number = (v: unknown, fallback: number, lo: number, hi: number) => (typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi ? v : fallback);
const difference = (v: unknown) => (v === 'ABSOLUTE' ? 'ABSOLUTE' : 'RELATIVE');

/**
 * Invalid values fall back to the defaults rather than failing the query (PostHog's utils): Bayesian,
 * 95 %, relative, α = 0.05, no sequential testing (tuning 5000 when on), CUPED off with a 14-day
 * lookback clamped to 1…30, baseline `control`.
 */
export function resolveConfig(raw: unknown): ResolvedConfig {
  const c = isObject(raw) ? raw : {};
  const bayesian = isObject(c.bayesian) ? c.bayesian : {};
  const frequentist = isObject(c.frequentist) ? c.frequentist : {};
  const cuped = isObject(c.cuped) ? c.cuped : {};
  const lookback = typeof cuped.lookback_days === 'number' && Number.isFinite(cuped.lookback_days) ? Math.min(30, Math.max(1, Math.round(cuped.lookback_days))) : 14;
  return {
    stats: {
      method: c.method === 'frequentist' ? 'frequentist' : 'bayesian',
      bayesian: { ciLevel: number(bayesian.ci_level, 0.95, 0.5, 0.9999), differenceType: difference(bayesian.difference_type) },
      frequentist: {
        alpha: number(frequentist.alpha, 0.05, 0.0001, 0.5),
        differenceType: difference(frequentist.difference_type),
        sequentialTestingEnabled: frequentist.sequential_testing_enabled === true,
        sequentialTuningParameter: number(frequentist.sequential_tuning_parameter, DEFAULT_SEQUENTIAL_TUNING, 1, 1e9),
      },
      cuped: { enabled: cuped.enabled === true },
    },
    cupedLookbackDays: lookback,
    baselineKey: typeof c.baseline_variant_key === 'string' ? c.baseline_variant_key : 'control',
  };
}
