import type { ExperimentMetricReads } from '../../store/analytics';
import type { ExperimentQueries } from '../../../projections/experiments-queries';
import { notFound, validationError } from '../../errors';
import { chiSquareGoodnessOfFit } from '../../stats';
import { variantKeysOf } from '../variants';
import { assignExposures, handlingOf, MULTIPLE_VARIANT_KEY } from './exposure-assignment';
import { exposureSightings } from './exposure-sightings';
import type { ActionQueries } from '../../../projections/actions-queries';

const DAY_MS = 86_400_000;
/** PostHog's query row limit (days × variants); a longer range is refused rather than truncated. */
const MAX_DAYS = 5000;
/** Below this many exposures PostHog gives no sample-ratio verdict. */
const SRM_MINIMUM_SAMPLE_SIZE = 100;

export interface ExposureQueryInput {
  experiment_id: number;
  start_date?: string | null;
  end_date?: string | null;
}

export interface ExposureTimeSeries {
  variant: string;
  /** UTC days, `YYYY-MM-DD`, from the start day to the end day. */
  days: string[];
  /** Entities exposed up to and including each day (cumulative). */
  exposure_counts: number[];
}

export interface ExposureQueryDeps {
  experiments: ExperimentQueries;
  metricQueries: ExperimentMetricReads;
  /** The project's actions, for an ActionsNode exposure. */
  actions?: Pick<ActionQueries, 'byId'>;
  now?: () => Date;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function parseDate(value: string | null | undefined, field: string): number | null {
  if (value === undefined || value === null) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw validationError(`${field} must be an ISO date, got ${JSON.stringify(value)}.`, field);
  return ms;
}

/**
 * PostHog's `ExperimentExposureQuery`: each variant's exposed entities over the experiment's days,
 * cumulative, counted on the day of their first exposure, with the totals and PostHog's
 * sample-ratio check. Entities are resolved and assigned exactly as `ExperimentQuery` assigns them
 * (same exposure criteria), except that under `exclude` those seen in two variants show as
 * `$multiple` instead of being left out. The flag and exposure criteria are the stored experiment's;
 * the query may narrow the dates.
 */
export class ExperimentExposureRunner {
  private readonly now: () => Date;

  constructor(private readonly deps: ExposureQueryDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async run(projectId: number, query: ExposureQueryInput) {
    const experiment = await this.deps.experiments.byId(projectId, query.experiment_id);
    if (!experiment) throw notFound();
    const start = parseDate(query.start_date, 'start_date') ?? parseDate(experiment.start_date, 'start_date');
    const endAsked = parseDate(query.end_date, 'end_date') ?? parseDate(experiment.end_date, 'end_date');
    const base = { kind: 'ExperimentExposureQuery' as const, last_refresh: this.now().toISOString(), is_cached: false };
    if (start === null) {
      // A draft: nothing to count yet (PostHog answers empty too).
      return { ...base, timeseries: [], total_exposures: {}, date_range: { date_from: null, date_to: null, explicitDate: true }, sample_ratio_mismatch: null };
    }
    const end = endAsked ?? this.now().getTime();
    if (end < start) throw validationError('end_date must not be before start_date.', 'end_date');
    const firstDay = Date.parse(`${dayOf(start)}T00:00:00.000Z`);
    const dayCount = Math.floor((end - firstDay) / DAY_MS) + 1;
    if (dayCount > MAX_DAYS) throw validationError(`The date range spans ${dayCount} days; at most ${MAX_DAYS} are answered.`, 'start_date');

    const rows = await exposureSightings(this.deps.metricQueries, projectId, experiment, start, end, [], this.deps.actions);
    const assigned = assignExposures(rows, handlingOf(experiment.exposure_criteria));
    const variants = variantKeysOf(experiment.feature_flag.filters);
    const known = new Set([...variants, MULTIPLE_VARIANT_KEY]);
    const daily = new Map<string, number[]>();
    for (const { variant, first } of assigned.values()) {
      if (!known.has(variant)) continue;
      let counts = daily.get(variant);
      if (!counts) daily.set(variant, (counts = new Array<number>(dayCount).fill(0)));
      counts[Math.floor((first - firstDay) / DAY_MS)] += 1;
    }
    const days = Array.from({ length: dayCount }, (_, i) => dayOf(firstDay + i * DAY_MS));
    const timeseries: ExposureTimeSeries[] = [];
    const total_exposures: Record<string, number> = {};
    for (const variant of [...variants, MULTIPLE_VARIANT_KEY]) {
      const counts = daily.get(variant);
      if (!counts) continue;
      let running = 0;
      const exposure_counts = counts.map((c) => (running += c));
      timeseries.push({ variant, days, exposure_counts });
      total_exposures[variant] = running;
    }
    return {
      ...base,
      timeseries,
      total_exposures,
      date_range: { date_from: new Date(start).toISOString(), date_to: endAsked === null ? null : new Date(endAsked).toISOString(), explicitDate: true },
      sample_ratio_mismatch: sampleRatio(experiment.feature_flag.filters, total_exposures),
    };
  }
}

/**
 * PostHog's check: a chi-square goodness of fit of the variants with a non-zero rollout against
 * their rollout shares, once at least 100 of them are exposed; `$multiple` is left out.
 */
function sampleRatio(filters: Record<string, unknown>, totals: Record<string, number>): { expected: Record<string, number>; p_value: number } | null {
  const multivariate = filters.multivariate as { variants?: unknown } | undefined;
  const configured = Array.isArray(multivariate?.variants) ? (multivariate.variants as { key?: unknown; rollout_percentage?: unknown }[]) : [];
  const shares = configured
    .filter((v) => typeof v.key === 'string' && typeof v.rollout_percentage === 'number' && v.rollout_percentage > 0)
    .map((v) => ({ key: v.key as string, share: v.rollout_percentage as number }));
  const observed = shares.map((s) => totals[s.key] ?? 0);
  const total = observed.reduce((a, b) => a + b, 0);
  if (shares.length < 2 || total < SRM_MINIMUM_SAMPLE_SIZE) return null;
  const expected = Object.fromEntries(shares.map((s) => [s.key, (s.share / 100) * total]));
  return { expected, p_value: chiSquareGoodnessOfFit(observed, shares.map((s) => s.share)).p_value };
}
