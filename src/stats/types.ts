import type { FunnelFrequentist } from './frequentist/two-proportion';
import type { TrendFrequentist } from './frequentist/poisson-rates';
import type { SampleRatioMismatch } from './srm';

export type SignificanceCode =
  | 'significant'
  | 'not_enough_exposure'
  | 'low_win_probability'
  | 'high_loss'
  | 'high_p_value';

export type { Interval } from './interval';
import type { Interval } from './interval';

/** Funnel counts per variant: persons who completed / did not complete the funnel. */
export interface FunnelVariantInput {
  key: string;
  success: number;
  failure: number;
}

/** Trend counts per variant: metric event count and number of exposed persons. */
export interface TrendVariantInput {
  key: string;
  count: number;
  exposure: number;
}

export interface ExperimentStatsOptions {
  /** Defaults to `control`. */
  controlKey?: string;
  /**
   * Configured rollout split in percent per variant key (the flag's
   * `multivariate.variants[].rollout_percentage`). Normalised by its sum.
   * Defaults to an equal split over the given variants.
   */
  split?: Readonly<Record<string, number>>;
  /**
   * Exposed persons per variant for the sample-ratio check, e.g. distinct
   * `$feature_flag_called` persons. Defaults to the funnel's entrants
   * (success + failure) or the trend's exposure.
   */
  exposures?: Readonly<Record<string, number>>;
}

export interface FunnelVariantStats {
  key: string;
  success_count: number;
  failure_count: number;
}

export interface TrendVariantStats {
  key: string;
  count: number;
  /** Exposure relative to control (control = 1), as PostHog reports it. */
  exposure: number;
  /** Exposed persons, as given. */
  absolute_exposure: number;
}

interface ExperimentStatsBase {
  probability: Record<string, number>;
  significant: boolean;
  significance_code: SignificanceCode;
  credible_intervals: Record<string, Interval>;
  sample_ratio_mismatch: SampleRatioMismatch;
}

export interface FunnelExperimentStats extends ExperimentStatsBase {
  insight: 'FUNNELS';
  /** 1 when the check stops before computing it, as in PostHog. */
  expected_loss: number;
  variants: FunnelVariantStats[];
  frequentist: FunnelFrequentist;
}

export interface TrendExperimentStats extends ExperimentStatsBase {
  insight: 'TRENDS';
  /** 1 when the check stops before computing it, as in PostHog. */
  p_value: number;
  variants: TrendVariantStats[];
  frequentist: TrendFrequentist;
}
