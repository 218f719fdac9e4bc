import type { ExperimentMetricQueries, MetricEventRow } from '../../../projections/experiment-metric-queries';
import type { ExperimentQueries, ExperimentRow } from '../../../projections/experiments-queries';
import { notFound, validationError } from '../../errors';
import { analyseMetric, clamp, outlierBounds, type Arm, type MetricKind, type VariantStatistic } from '../../stats/v2';
import { ExperimentMetric, type MetricSource } from '../metrics/schema';
import type { ActionStep } from '../../../streams';
import { variantKeysOf } from '../variants';
import { resolveConfig } from './config';
import { assignExposures, handlingOf, MULTIPLE_VARIANT_KEY } from './exposure-assignment';
import { exposureSightings } from './exposure-sightings';
import { eventsByEntity, funnelStepsReached, sourceValue, type Exposed, type Window } from './entity-values';
import { retentionOf, retentionReadBeyondEndMs, retentionWindowOf } from './retention';
import { readsProperties, sourceFilters, sourceMatcher, type ResolvedActions, type SourceMatch } from './source-match';
import type { ActionQueries } from '../../../projections/actions-queries';
import { checkAction, stepEvents } from '../../actions/match';

const DAY_MS = 86_400_000;
/** A funnel without a conversion window counts conversions for 3 years (PostHog). */
const NO_WINDOW_MS = 3 * 365 * DAY_MS;
const UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS };

export interface ExperimentQueryDeps {
  experiments: ExperimentQueries;
  metricQueries: ExperimentMetricQueries;
  /** The project's actions, for ActionsNode sources (none given: every action id is unknown). */
  actions?: Pick<ActionQueries, 'byId'>;
  now?: () => Date;
}

interface ArmSums {
  key: string;
  n: number;
  sum: number;
  sumSquares: number;
  denominatorSum: number;
  denominatorSumSquares: number;
  sumProducts: number;
  stepCounts: number[];
  covariateSum: number;
  covariateSumSquares: number;
  covariateSumProduct: number;
}

const emptySums = (key: string, steps: number): ArmSums => ({
  key,
  n: 0,
  sum: 0,
  sumSquares: 0,
  denominatorSum: 0,
  denominatorSumSquares: 0,
  sumProducts: 0,
  stepCounts: Array<number>(steps).fill(0),
  covariateSum: 0,
  covariateSumSquares: 0,
  covariateSumProduct: 0,
});

/** The event names a source reads: an EventsNode's event, or the events of its action's steps (resolved and checked first). */
function refuseSource(source: MetricSource, actions: ResolvedActions): string[] {
  if (source.math === 'hogql') throw validationError("The 'hogql' math is not supported here.", 'query');
  if (source.kind === 'ActionsNode') {
    const steps = actions.get(source.id);
    if (!steps) throw validationError(`Action ${source.id} does not exist.`, 'query');
    return stepEvents(steps);
  }
  sourceFilters(source);
  if (!source.event) throw validationError('A metric source needs an event.', 'query');
  return [source.event];
}

/**
 * PostHog's `ExperimentQuery` (compat §15.2): one metric of one experiment, answered per variant with
 * its sufficient statistics and the configured method's outputs. The SQL reads the exposures once
 * and the metric's events once (covariate window included); everything after is one pass per entity.
 */
export class ExperimentQueryRunner {
  private readonly now: () => Date;

  constructor(private readonly deps: ExperimentQueryDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async run(projectId: number, experimentId: number, rawMetric: unknown) {
    const experiment = await this.deps.experiments.byId(projectId, experimentId);
    if (!experiment) throw notFound();
    const parsed = ExperimentMetric.safeParse(rawMetric);
    if (!parsed.success) throw validationError(`Invalid metric: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, 'query');
    const metric = parsed.data;
    if (experiment.start_date === null) throw validationError('Experiment has not started yet.', 'query');
    const config = resolveConfig(experiment.stats_config);

    const start = Date.parse(experiment.start_date);
    const end = experiment.end_date === null ? this.now().getTime() : Date.parse(experiment.end_date);
    const cuped = config.stats.cuped.enabled && (metric.metric_type === 'mean' || (metric.metric_type === 'funnel' && metric.funnel_order_type !== 'unordered'));
    const lookback = cuped ? config.cupedLookbackDays * DAY_MS : 0;
    const windowMs = metric.conversion_window ? metric.conversion_window * (UNIT_MS[metric.conversion_window_unit ?? 'day'] ?? DAY_MS) : null;

    const breakdowns = breakdownsOf(metric);
    const exposed = await this.exposed(projectId, experiment, start, end, breakdowns);
    const sources = sourcesOf(metric);
    const actions = await this.resolveActions(projectId, sources);
    const names = sources.flatMap((source) => refuseSource(source, actions));
    // Each source's events: by name, and by its property filters (read with the events when any).
    const decoded = new WeakMap<MetricEventRow, Record<string, unknown>>();
    const now = this.now();
    const matcher = (source: MetricSource): SourceMatch => sourceMatcher(source, now, decoded, actions);
    const mathProperty = metric.metric_type === 'mean' && metric.source.math_property ? metric.source.math_property : null;
    const retention = metric.metric_type === 'retention' ? retentionWindowOf(metric, windowMs) : null;
    // A retention metric reads on past the end: a late start's conversion and retention windows.
    const span = { from: new Date(start - lookback).toISOString(), to: new Date(end + (retention ? retentionReadBeyondEndMs(retention) : 0)).toISOString() };
    const read = (eventNames: string[], property: string | null, sourcesRead: MetricSource[]) =>
      this.deps.metricQueries.metricEvents(projectId, eventNames, property, span, readsProperties(sourcesRead, actions));
    const rows: MetricEventRow[] = await read(names, mathProperty, sources);
    // A ratio reads two sources, each perhaps with its own property.
    const denominatorRows = metric.metric_type === 'ratio' && metric.denominator.math_property
      ? await read(refuseSource(metric.denominator, actions), metric.denominator.math_property, [metric.denominator])
      : null;
    const numeratorRows = metric.metric_type === 'ratio' && metric.numerator.math_property
      ? await read(refuseSource(metric.numerator, actions), metric.numerator.math_property, [metric.numerator])
      : null;
    const byEntity = eventsByEntity(rows);
    const numeratorByEntity = numeratorRows ? eventsByEntity(numeratorRows) : byEntity;
    const denominatorByEntity = denominatorRows ? eventsByEntity(denominatorRows) : byEntity;

    const keys = variantKeysOf(experiment.feature_flag.filters);
    const steps = metric.metric_type === 'funnel' ? metric.series.length : 0;
    const meanMatch = metric.metric_type === 'mean' ? matcher(metric.source) : null;
    const stepMatches = metric.metric_type === 'funnel' ? metric.series.map(matcher) : [];
    const ratioMatches = metric.metric_type === 'ratio' ? { numerator: matcher(metric.numerator), denominator: matcher(metric.denominator) } : null;
    const retentionMatches = metric.metric_type === 'retention' ? { start: matcher(metric.start_event), completion: matcher(metric.completion_event) } : null;
    const variantKeys = new Set(keys);

    // Per entity: the post-exposure value (within the conversion window) and the covariate.
    const values: EntityValue[] = [];
    for (const [entity, e] of exposed) {
      if (!variantKeys.has(e.variant)) continue;
      const post: Window = { from: e.first, to: Math.min(end + 1, e.first + (windowMs ?? (metric.metric_type === 'funnel' ? NO_WINDOW_MS : Number.POSITIVE_INFINITY))) };
      const pre: Window = { from: e.first - lookback, to: e.first };
      const events = byEntity.get(entity);
      let y = 0;
      let d = 0;
      let x = 0;
      let reached = 0;
      if (metric.metric_type === 'mean') {
        y = sourceValue(metric.source, events, post, meanMatch!);
        if (cuped) x = sourceValue(metric.source, events, pre, meanMatch!);
      } else if (metric.metric_type === 'funnel') {
        reached = funnelStepsReached(metric, events, post, stepMatches);
        y = reached === steps ? 1 : 0;
        if (cuped) {
          const last = metric.series[steps - 1];
          x = last && sourceValue({ ...last, math: 'dau' }, events, pre, stepMatches[steps - 1]) > 0 ? 1 : 0;
        }
      } else if (metric.metric_type === 'ratio') {
        y = sourceValue(metric.numerator, numeratorByEntity.get(entity), post, ratioMatches!.numerator);
        d = sourceValue(metric.denominator, denominatorByEntity.get(entity), post, ratioMatches!.denominator);
      } else {
        // Only entities that did the start event count (PostHog: "of those who did X, how many came back to do Y").
        const retained = retentionOf(events ?? [], e.first, { from: start, to: end }, retention!, retentionMatches!);
        if (retained === null) continue;
        y = retained;
        d = 1;
      }
      values.push({ variant: e.variant, breakdown: e.breakdown ?? [], y, d, x, reached });
    }

    // The same statistics over every exposed entity, then (breakdowns) over each breakdown value's.
    const summarize = (group: readonly EntityValue[]) => {
      const clamped = group.map((v) => ({ ...v }));
      if (metric.metric_type === 'mean' && (metric.lower_bound_percentile != null || metric.upper_bound_percentile != null)) {
        const bounds = outlierBounds(clamped.map((v) => v.y), metric.lower_bound_percentile, metric.upper_bound_percentile, metric.ignore_zeros === true);
        for (const v of clamped) v.y = clamp(v.y, bounds);
      }
      const sums = new Map(keys.map((k) => [k, emptySums(k, steps)]));
      for (const { variant, y, d, x, reached } of clamped) {
        const arm = sums.get(variant)!;
        for (let i = 0; i < reached; i++) arm.stepCounts[i] = (arm.stepCounts[i] ?? 0) + 1;
        arm.n += 1;
        arm.sum += y;
        arm.sumSquares += y * y;
        arm.denominatorSum += d;
        arm.denominatorSumSquares += d * d;
        arm.sumProducts += y * d;
        arm.covariateSum += x;
        arm.covariateSumSquares += x * x;
        arm.covariateSumProduct += x * y;
      }
      const baseline = sums.get(config.baselineKey) ?? emptySums(config.baselineKey, steps);
      const others = keys.filter((k) => k !== config.baselineKey).map((k) => sums.get(k) ?? emptySums(k, steps));
      const kind: MetricKind = metric.metric_type;
      const armOf = (a: ArmSums): Arm => ({
        key: a.key,
        statistic: statisticOf(kind, a),
        ...(cuped ? { covariate: { sum: a.covariateSum, sumSquares: a.covariateSumSquares, sumProducts: a.covariateSumProduct } } : {}),
      });
      const analysis = analyseMetric(kind, armOf(baseline), others.map(armOf), config.stats);
      const shape = (a: ArmSums) => sufficientShape(kind, a, cuped);
      return {
        baseline: { ...shape(baseline), validation_failures: analysis.baseline.validation_failures },
        variant_results: analysis.variants.map((v, i) => {
          const a = others[i] ?? emptySums(v.key, steps);
          return { ...shape(a), ...v.outcome, validation_failures: v.validation_failures };
        }),
      };
    };
    const overall = summarize(values);
    return {
      kind: 'ExperimentQuery' as const,
      metric: rawMetric,
      ...overall,
      ...(breakdowns.length ? { breakdown_results: breakdownResults(values, summarize) } : {}),
      is_precomputed: false,
      last_refresh: this.now().toISOString(),
    };
  }

  /** Exposed entities by the experiment's exposure criteria (`exclude` drops those seen in two variants). */
  private async exposed(projectId: number, experiment: ExperimentRow, start: number, end: number, breakdowns: readonly string[]): Promise<Map<string, Exposed>> {
    const rows = await exposureSightings(this.deps.metricQueries, projectId, experiment, start, end, breakdowns, this.deps.actions);
    const byEntity = assignExposures(rows, handlingOf(experiment.exposure_criteria));
    for (const [entity, e] of byEntity) if (e.variant === MULTIPLE_VARIANT_KEY) byEntity.delete(entity);
    return byEntity;
  }

  /**
   * The steps of every action the sources name: of this project and not deleted (else a 400 naming
   * the id: another project's action is unknown here), each step one this service can evaluate.
   */
  private async resolveActions(projectId: number, sources: readonly MetricSource[]): Promise<ResolvedActions> {
    const resolved = new Map<number, ActionStep[]>();
    for (const source of sources) {
      if (source.kind !== 'ActionsNode' || resolved.has(source.id)) continue;
      const action = await this.deps.actions?.byId(projectId, source.id);
      if (!action || action.deleted) throw validationError(`Action ${source.id} does not exist.`, 'query');
      checkAction({ id: source.id, steps: action.fields.steps });
      resolved.set(source.id, action.fields.steps);
    }
    return resolved;
  }
}

/** One exposed entity's values: the metric's, the funnel steps reached, the covariate, its breakdown values. */
interface EntityValue {
  variant: string;
  breakdown: readonly string[];
  y: number;
  d: number;
  x: number;
  reached: number;
}

/** The metric's breakdown properties (event properties of the exposure; the schema holds them to PostHog's 3), refused (400) of another type. */
function breakdownsOf(metric: ExperimentMetric): string[] {
  const breakdowns = metric.breakdownFilter?.breakdowns ?? [];
  for (const b of breakdowns) {
    if (b.type != null && b.type !== 'event') throw validationError(`Breakdowns of type '${b.type}' are not supported here (only event properties of the exposure).`, 'query');
  }
  return breakdowns.map((b) => b.property);
}

/** PostHog's `breakdown_results`: per combination of breakdown values (in order of first appearance), the statistics of its entities. */
function breakdownResults<T>(values: readonly EntityValue[], summarize: (group: readonly EntityValue[]) => { baseline: T; variant_results: unknown[] }) {
  const groups = new Map<string, EntityValue[]>();
  for (const v of values) {
    const key = JSON.stringify(v.breakdown);
    const group = groups.get(key);
    if (group) group.push(v);
    else groups.set(key, [v]);
  }
  return [...groups.values()].map((group) => {
    const { baseline, variant_results } = summarize(group);
    return { breakdown_value: group[0]!.breakdown, baseline, variants: variant_results };
  });
}

/** Every source the metric reads events of. */
function sourcesOf(metric: ExperimentMetric): MetricSource[] {
  switch (metric.metric_type) {
    case 'mean':
      return [metric.source];
    case 'funnel':
      return metric.series;
    case 'ratio':
      return [metric.numerator, metric.denominator];
    case 'retention':
      return [metric.start_event, metric.completion_event];
  }
}

function statisticOf(kind: MetricKind, s: ArmSums): VariantStatistic {
  if (kind === 'funnel') return { kind: 'proportion', n: s.n, sum: s.sum };
  // Retention is a ratio of retained to started entities (PostHog analyses it with its ratio statistic).
  if (kind === 'ratio' || kind === 'retention') {
    return {
      kind: 'ratio',
      n: s.n,
      numerator: { sum: s.sum, sumSquares: s.sumSquares },
      denominator: { sum: s.denominatorSum, sumSquares: s.denominatorSumSquares },
      sumProducts: s.sumProducts,
    };
  }
  return { kind: 'mean', n: s.n, sum: s.sum, sumSquares: s.sumSquares };
}

/** PostHog's ExperimentStatsBaseValidated fields for the metric kind. */
function sufficientShape(kind: MetricKind, s: ArmSums, cuped: boolean) {
  return {
    key: s.key,
    number_of_samples: s.n,
    sum: s.sum,
    sum_squares: s.sumSquares,
    ...(kind === 'ratio' || kind === 'retention'
      ? { denominator_sum: s.denominatorSum, denominator_sum_squares: s.denominatorSumSquares, numerator_denominator_sum_product: s.sumProducts }
      : {}),
    ...(kind === 'funnel' ? { step_counts: s.stepCounts } : {}),
    ...(cuped ? { covariate_sum: s.covariateSum, covariate_sum_squares: s.covariateSumSquares, covariate_sum_product: s.covariateSumProduct } : {}),
  };
}
