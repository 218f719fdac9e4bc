import type { ExperimentRow } from '../../../projections/experiments-queries';
import type { ExperimentResultsQueries, FunnelRow, TimeRange } from '../../../projections/experiments-results-queries';
import { validationError } from '../../errors';
import {
  ExperimentStatsError,
  funnelExperimentStats,
  trendExperimentStats,
  type FunnelExperimentStats,
  type TrendExperimentStats,
} from '../../stats';
import { funnelCounts } from './funnel-counts';
import type { Metric } from './metric';

export type MetricStats = (FunnelExperimentStats | TrendExperimentStats) & {
  filters: Record<string, unknown>;
  /** Distinct persons who sent `$feature_flag_called`, per variant. */
  exposures: Record<string, number>;
};

/** The experiment's variants and configured split, as its flag serves them now. */
export function variantsOf(experiment: ExperimentRow): { keys: string[]; split: Record<string, number> } {
  const multivariate = experiment.feature_flag.filters.multivariate as { variants?: { key: string; rollout_percentage: number }[] } | null;
  const variants = multivariate?.variants ?? [];
  return { keys: variants.map((v) => v.key), split: Object.fromEntries(variants.map((v) => [v.key, v.rollout_percentage])) };
}

/** The results' date range: the experiment's start to its end (open-ended while running). */
export function rangeOf(experiment: ExperimentRow): TimeRange {
  if (experiment.start_date === null) throw validationError('Experiment has not started yet: results need a start_date.', null, 'no_data');
  return { from: experiment.start_date, to: experiment.end_date };
}

/** PostHog answers a variant without data with a `no_data` validation error. */
function requireData(hasData: (key: string) => boolean, keys: readonly string[]) {
  if (!hasData('control')) throw validationError('No control variant data found', null, 'no_data');
  if (!keys.some((k) => k !== 'control' && hasData(k))) throw validationError('No test variant data found', null, 'no_data');
}

const byKey = <T extends { variant: string | number | null }>(rows: readonly T[], keys: readonly string[], pick: (r: T) => number) => {
  const out: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 0]));
  for (const r of rows) if (typeof r.variant === 'string' && r.variant in out) out[r.variant] += pick(r);
  return out;
};

const FLAG_CALLED = '$feature_flag_called';

/**
 * Distinct persons who sent `$feature_flag_called` for the experiment's flag, per served variant:
 * computed once per experiment state and shared by every metric. A funnel whose first step is the
 * flag call has already read exactly those rows (this flag's calls, variant = served response), so
 * it hands them over instead of paying for a second pass.
 */
export class Exposures {
  private counts: Promise<Record<string, number>> | null = null;

  constructor(
    private readonly queries: ExperimentResultsQueries,
    private readonly experiment: ExperimentRow,
  ) {}

  get(): Promise<Record<string, number>> {
    const { project_id, feature_flag_key } = this.experiment;
    this.counts ??= this.queries
      .exposures(project_id, feature_flag_key, rangeOf(this.experiment))
      .then((rows) => byKey(rows, variantsOf(this.experiment).keys, (r) => r.persons));
    return this.counts;
  }

  fromFlagCallRows(rows: readonly FunnelRow[]): Promise<Record<string, number>> {
    if (this.counts) return this.counts;
    const perVariant = new Map<string | number | null, Set<string>>();
    for (const r of rows) {
      if (r.s !== 0) continue;
      const persons = perVariant.get(r.v) ?? new Set<string>();
      perVariant.set(r.v, persons.add(r.p));
    }
    const counted = [...perVariant].map(([variant, persons]) => ({ variant, persons: persons.size }));
    this.counts = Promise.resolve(byKey(counted, variantsOf(this.experiment).keys, (r) => r.persons));
    return this.counts;
  }
}

/**
 * Counts a metric per variant from the analytics events and runs the statistics. Attribution as
 * compat §4: metric events by `$feature/<key>`, exposures by `$feature_flag_called` persons.
 */
export async function computeMetric(
  queries: ExperimentResultsQueries,
  experiment: ExperimentRow,
  metric: Metric,
  filters: unknown,
  exposureCounts = new Exposures(queries, experiment),
): Promise<MetricStats> {
  const projectId = experiment.project_id;
  const flagKey = experiment.feature_flag_key;
  const range = rangeOf(experiment);
  const { keys, split } = variantsOf(experiment);
  const echo = {
    ...(filters as Record<string, unknown>),
    insight: metric.insight,
    date_from: range.from,
    date_to: range.to,
    breakdown: `$feature/${flagKey}`,
    breakdown_type: 'event',
  };
  try {
    if (metric.insight === 'FUNNELS') {
      const rows = await queries.funnelRows(projectId, metric.steps, flagKey, range);
      // Only when the flag call is the FIRST step does every flag-call row carry its variant.
      const exposures = await (metric.steps[0] === FLAG_CALLED ? exposureCounts.fromFlagCallRows(rows) : exposureCounts.get());
      const counts = funnelCounts(rows, metric.steps, metric.windowMs, keys);
      const inputs = keys.map((key) => ({ key, ...counts.get(key)! }));
      requireData((k) => counts.get(k)!.success + counts.get(k)!.failure > 0, keys);
      // SRM on flag exposures when the SDK reports them, else on funnel entrants.
      const anyExposure = Object.values(exposures).some((n) => n > 0);
      const stats = funnelExperimentStats(inputs, { split, exposures: anyExposure ? exposures : undefined });
      return { ...stats, filters: echo, exposures };
    }
    const counts = byKey(await queries.trendCounts(projectId, metric.event, flagKey, range, metric.math), keys, (r) => r.value);
    requireData((k) => counts[k] > 0, keys);
    const exposures = await exposureCounts.get();
    const stats = trendExperimentStats(
      keys.map((key) => ({ key, count: counts[key], exposure: exposures[key] })),
      { split },
    );
    return { ...stats, filters: echo, exposures };
  } catch (err) {
    if (err instanceof ExperimentStatsError) throw validationError(err.message, null, err.code);
    throw err;
  }
}

/** A secondary metric's headline value per variant: conversion rate (funnels) or count (trends). */
export function secondaryValues(stats: MetricStats): Record<string, number | null> {
  if (stats.insight === 'FUNNELS')
    return Object.fromEntries(
      stats.variants.map((v) => [v.key, v.success_count + v.failure_count === 0 ? null : v.success_count / (v.success_count + v.failure_count)]),
    );
  return Object.fromEntries(stats.variants.map((v) => [v.key, v.count]));
}
