/** The flag variant every other variant is compared against (PostHog's CONTROL_VARIANT_KEY). */
export const CONTROL_VARIANT_KEY = 'control';

/**
 * PostHog's FF_DISTRIBUTION_THRESHOLD: below this many exposed persons in any
 * variant the split can still skew wildly, so results are never significant.
 */
export const EXPOSURE_THRESHOLD = 100;

/** PostHog's MIN_PROBABILITY_FOR_SIGNIFICANCE. */
export const MIN_PROBABILITY_FOR_SIGNIFICANCE = 0.9;

/** PostHog's EXPECTED_LOSS_SIGNIFICANCE_LEVEL (funnels; in conversion-rate units). */
export const EXPECTED_LOSS_SIGNIFICANCE_LEVEL = 0.01;

/** PostHog's P_VALUE_SIGNIFICANCE_LEVEL (trends), also the frequentist alpha. */
export const P_VALUE_SIGNIFICANCE_LEVEL = 0.05;

/** Bounds of the 95% equal-tailed credible interval. */
export const CREDIBLE_INTERVAL_BOUNDS: readonly [number, number] = [0.025, 0.975];

export const CONFIDENCE_LEVEL = 0.95;

/**
 * Sample-ratio-mismatch alarm level. Much stricter than the 0.05 used for
 * effects because the check is re-run on every refresh of a running
 * experiment: at 0.001 a healthy experiment refreshed hundreds of times still
 * rarely raises a false alarm, while real assignment bugs (which usually give
 * astronomically small p-values once traffic accrues) are still caught.
 */
export const SRM_P_VALUE_THRESHOLD = 0.001;
