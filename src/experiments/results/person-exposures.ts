import type { ExperimentRow } from '../../../projections/experiments-queries';
import type { ExperimentResultsQueries, PersonEventRow, PersonRef } from '../../../projections/experiments-results-queries';
import { DomainError } from '../../errors';
import { rangeOf, variantsOf } from './compute';
import { funnelCounts } from './funnel-counts';
import { parseMetric, type Metric } from './metric';

const FLAG_CALLED = '$feature_flag_called';

/** One event the results read for the person, and whether it counted for a variant. */
export interface CountedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  /** The variant the event carries (the flag call's response, or `$feature/<key>`), if a string. */
  variant: string | null;
  /** Whether the results count it: it carries one of the experiment's variants. */
  counted: boolean;
}

export interface MetricForPerson {
  name: string;
  kind: 'primary' | 'secondary';
  insight: 'FUNNELS' | 'TRENDS' | null;
  events: CountedEvent[];
  /** The variant the person is counted under for this metric (funnels: first touch), or null. */
  variant: string | null;
  /** Funnels: whether the person completed it; trends: whether any event counted. */
  converted: boolean | null;
  /** Why the metric could not be read (unsupported filters), as the results report it. */
  error: string | null;
}

export interface PersonExposures {
  /** The variant of the person's first counted exposure, or null. */
  variant: string | null;
  exposures: CountedEvent[];
  metrics: MetricForPerson[];
}

const asVariant = (v: PersonEventRow['v']): string | null => (typeof v === 'string' ? v : null);

function counted(rows: readonly PersonEventRow[], keys: readonly string[]): CountedEvent[] {
  return rows.map((r) => {
    const variant = asVariant(r.v);
    return { uuid: r.uuid, event: r.event, distinct_id: r.distinct_id, timestamp: r.timestamp, variant, counted: variant !== null && keys.includes(variant) };
  });
}

function metricsOf(experiment: ExperimentRow): { name: string; kind: 'primary' | 'secondary'; metric: Metric | null; error: string | null }[] {
  const parse = (filters: unknown, attr: string) => {
    try {
      return { metric: parseMetric(filters, attr), error: null };
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind !== 'validation') throw err;
      return { metric: null, error: err.message };
    }
  };
  const secondary: unknown[] = Array.isArray(experiment.secondary_metrics) ? experiment.secondary_metrics : [];
  return [
    { name: 'primary', kind: 'primary' as const, ...parse(experiment.filters, 'filters') },
    ...secondary.map((raw, index) => {
      const item = (raw ?? {}) as { name?: unknown; filters?: unknown };
      return { name: typeof item.name === 'string' ? item.name : `Metric ${index + 1}`, kind: 'secondary' as const, ...parse(item.filters, 'secondary_metrics') };
    }),
  ];
}

/**
 * What the experiment's results counted for one person: their `$feature_flag_called` exposures and,
 * per metric, the events and the variant they were attributed to. The same selection as the
 * results' queries (personEvents) and the same funnel attribution (funnelCounts).
 */
export async function personExposures(queries: ExperimentResultsQueries, experiment: ExperimentRow, person: PersonRef): Promise<PersonExposures> {
  const range = rangeOf(experiment);
  const { keys } = variantsOf(experiment);
  const metrics = metricsOf(experiment);
  const names = [FLAG_CALLED, ...metrics.flatMap((m) => (m.metric === null ? [] : m.metric.insight === 'FUNNELS' ? m.metric.steps : [m.metric.event]))];
  const rows = await queries.personEvents(experiment.project_id, person, names, experiment.feature_flag_key, range);
  const exposures = counted(
    rows.filter((r) => r.event === FLAG_CALLED),
    keys,
  );
  const forPerson = metrics.map(({ name, kind, metric, error }): MetricForPerson => {
    if (metric === null) return { name, kind, insight: null, events: [], variant: null, converted: null, error };
    if (metric.insight === 'TRENDS') {
      const events = counted(
        rows.filter((r) => r.event === metric.event),
        keys,
      );
      const first = events.find((e) => e.counted);
      return { name, kind, insight: 'TRENDS', events, variant: first?.variant ?? null, converted: first !== undefined, error: null };
    }
    const stepRows = rows.filter((r) => metric.steps.includes(r.event));
    const funnel = stepRows.map((r) => {
      const s = metric.steps.indexOf(r.event);
      return { p: 'person', s, t: r.timestamp, v: s === 0 ? r.v : null };
    });
    const counts = funnelCounts(funnel, metric.steps, metric.windowMs, keys);
    const hit = [...counts].find(([, c]) => c.success + c.failure > 0);
    return {
      name,
      kind,
      insight: 'FUNNELS',
      events: counted(stepRows, keys).map((e) => ({ ...e, counted: hit !== undefined && (metric.steps.indexOf(e.event) !== 0 || e.variant === hit[0]) })),
      variant: hit?.[0] ?? null,
      converted: hit ? hit[1].success > 0 : null,
      error: null,
    };
  });
  return { variant: exposures.find((e) => e.counted)?.variant ?? null, exposures, metrics: forPerson };
}
