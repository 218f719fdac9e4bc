import type { ExperimentQueries, ExperimentRow } from '../../../projections/experiments-queries';
import type { ExperimentResultsQueries } from '../../../projections/experiments-results-queries';
import { DomainError, notFound, validationError } from '../../errors';
import { computeMetric, Exposures, secondaryValues } from './compute';
import type { ProjectEventCounter } from './event-counter';
import { parseMetric } from './metric';
import { personExposures, type PersonExposures } from './person-exposures';
import type { PersonRef } from '../../../projections/experiments-results-queries';

export interface ExperimentResultsDeps {
  experiments: ExperimentQueries;
  queries: ExperimentResultsQueries;
  counter: ProjectEventCounter;
  now?: () => Date;
}

interface Cached<T> {
  stamp: string;
  result: T;
  lastRefresh: string;
}

export interface ResultsBody<T> {
  result: T;
  last_refresh: string;
  is_cached: boolean;
}

const DAY_MS = 86_400_000;

/**
 * Primary and secondary results, computed from the analytics events and kept until the project
 * receives new events or the experiment or its flag changes (the stamp covers all three).
 */
export class ExperimentResults {
  private readonly cache = new Map<string, Cached<unknown>>();
  private readonly now: () => Date;

  constructor(private readonly deps: ExperimentResultsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  primary(projectId: number, id: number): Promise<ResultsBody<unknown>> {
    return this.cached('primary', projectId, id, (experiment) =>
      computeMetric(this.deps.queries, experiment, parseMetric(experiment.filters), experiment.filters),
    );
  }

  /**
   * One entry per `secondary_metrics` item: `{name, result: {variant: value}, ...statistics}`. A
   * metric without data (or not supported) reports its own error instead of failing the others.
   */
  secondary(projectId: number, id: number): Promise<ResultsBody<unknown>> {
    return this.cached('secondary', projectId, id, async (experiment) => {
      const metrics: unknown[] = Array.isArray(experiment.secondary_metrics) ? experiment.secondary_metrics : [];
      const exposures = new Exposures(this.deps.queries, experiment);
      const results = [];
      // One after another: the metrics share the exposures, read once by the first that needs them.
      for (const [index, raw] of metrics.entries()) {
        const item = (raw ?? {}) as { name?: unknown; filters?: unknown };
        const name = typeof item.name === 'string' ? item.name : `Metric ${index + 1}`;
        try {
          const stats = await computeMetric(this.deps.queries, experiment, parseMetric(item.filters, 'secondary_metrics'), item.filters, exposures);
          results.push({ name, result: secondaryValues(stats), ...stats });
        } catch (err) {
          if (!(err instanceof DomainError) || err.kind !== 'validation') throw err;
          results.push({ name, result: null, error: { code: err.code, detail: err.message } });
        }
      }
      return results;
    });
  }

  /** What the results count for one person (issue 23 item 4): their exposures and metric events, and the variant attributed. */
  async forPerson(projectId: number, id: number, person: PersonRef): Promise<PersonExposures> {
    const experiment = await this.deps.experiments.byId(projectId, id);
    if (!experiment) throw notFound();
    return personExposures(this.deps.queries, experiment, person);
  }

  /**
   * compat §4: true when none of the metric's events of the last 7 days carries `$feature/<key>`
   * (with no key: no `$feature/...` property at all), i.e. the flag is not yet sent with the events.
   */
  async requiresFlagImplementation(projectId: number, query: Record<string, unknown>): Promise<{ result: boolean }> {
    const events = metricEventsOf(query);
    const key = typeof query.feature_flag_key === 'string' && query.feature_flag_key !== '' ? query.feature_flag_key : null;
    const since = new Date(this.now().getTime() - 7 * DAY_MS).toISOString();
    return { result: !(await this.deps.queries.carriesFeatureProperty(projectId, events, since, key)) };
  }

  private async cached<T>(kind: string, projectId: number, id: number, compute: (e: ExperimentRow) => Promise<T>): Promise<ResultsBody<T>> {
    const experiment = await this.deps.experiments.byId(projectId, id);
    if (!experiment) throw notFound();
    const stamp = `${this.deps.counter.version(projectId)}/${experiment.version}/${experiment.feature_flag.version}`;
    const key = `${kind}/${projectId}/${id}`;
    const hit = this.cache.get(key) as Cached<T> | undefined;
    if (hit && hit.stamp === stamp) return { result: hit.result, last_refresh: hit.lastRefresh, is_cached: true };
    const result = await compute(experiment);
    const lastRefresh = this.now().toISOString();
    this.cache.set(key, { stamp, result, lastRefresh });
    return { result, last_refresh: lastRefresh, is_cached: false };
  }
}

/** The metric's event names from the query string: `events` as PostHog sends it (JSON list of {id}). */
function metricEventsOf(query: Record<string, unknown>): string[] {
  const raw = query.events;
  if (raw === undefined || raw === '') return [];
  let parsed: unknown;
  try {
    parsed = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw validationError('events must be a JSON list of {"id": "<event name>"}.', 'events');
  }
  if (!Array.isArray(parsed)) throw validationError('events must be a JSON list of {"id": "<event name>"}.', 'events');
  return parsed.map((e) => (typeof e === 'string' ? e : (e as { id?: unknown } | null)?.id)).filter((id): id is string => typeof id === 'string' && id !== '');
}
