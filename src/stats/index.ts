export { funnelExperimentStats } from './funnel/funnel-stats';
export { funnelSignificance } from './funnel/significance';
export { trendExperimentStats } from './trend/trend-stats';
export { posthogPoissonPValue, trendSignificance } from './trend/significance';
export { sampleRatioMismatch, chiSquareGoodnessOfFit } from './srm';
export { twoProportionZTest, wilsonInterval } from './frequentist/two-proportion';
export { comparePoissonRates, exactPoissonRateInterval } from './frequentist/poisson-rates';
export { ExperimentStatsError } from './errors';
export * from './constants';
export type { ExperimentStatsErrorCode } from './errors';
export type { SampleRatioMismatch, ChiSquareResult } from './srm';
export type { FunnelFrequentist, ProportionComparison } from './frequentist/two-proportion';
export type { TrendFrequentist, RateComparison } from './frequentist/poisson-rates';
export type {
  ExperimentStatsOptions,
  FunnelExperimentStats,
  FunnelVariantInput,
  FunnelVariantStats,
  Interval,
  SignificanceCode,
  TrendExperimentStats,
  TrendVariantInput,
  TrendVariantStats,
} from './types';
