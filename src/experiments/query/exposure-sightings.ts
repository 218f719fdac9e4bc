import type { ExperimentMetricReads } from '../../store/analytics';
import type { ExposureSighting } from './exposure-assignment';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import { validationError } from '../../errors';
import { EventsNode } from '../metrics/schema';
import { decodeProperties, propertiesMatch, sourceFilters } from './source-match';

/**
 * Per (entity, variant) the first exposure in [start, end], by the experiment's exposure criteria:
 * `$feature_flag_called` for its flag, or a custom exposure event carrying `$feature/<key>`; with
 * the criteria's property filters (event properties, as a metric source's), only the exposure
 * events they all hold for; with `breakdowns`, each first exposure's values of those event
 * properties (PostHog attributes breakdowns from the exposure).
 */
export async function exposureSightings(
  metricQueries: ExperimentMetricReads,
  projectId: number,
  experiment: ExperimentRow,
  start: number,
  end: number,
  breakdowns: readonly string[] = [],
): Promise<ExposureSighting[]> {
  const config = experiment.exposure_criteria?.exposure_config as { kind?: string; event?: unknown; properties?: unknown } | undefined;
  if (config && config.kind === 'ActionsNode') throw validationError('Action exposure criteria are not supported here.', 'query');
  const customEvent = config && typeof config.event === 'string' && config.event !== '$feature_flag_called' ? config.event : null;
  const span = { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
  const criteria = EventsNode.safeParse({ kind: 'EventsNode', properties: Array.isArray(config?.properties) ? config.properties : [] });
  if (!criteria.success) throw validationError('The exposure criteria\'s property filters are invalid: each needs a key.', 'query');
  const filters = sourceFilters(criteria.data);
  if (filters.length === 0 && breakdowns.length === 0) return metricQueries.exposures(projectId, experiment.feature_flag_key, customEvent, span);
  const now = new Date(end);
  const first = new Map<string, ExposureSighting & { props: Record<string, unknown> }>();
  for (const row of await metricQueries.exposureEvents(projectId, experiment.feature_flag_key, customEvent, span)) {
    const properties = decodeProperties(row.props);
    if (!propertiesMatch(filters, properties, now)) continue;
    const key = JSON.stringify([row.p, row.v]);
    const seen = first.get(key);
    if (!seen || row.t < seen.t) first.set(key, { p: row.p, v: row.v, t: row.t, props: properties });
  }
  return [...first.values()].map(({ props, ...sighting }) => (breakdowns.length ? { ...sighting, b: breakdowns.map((key) => breakdownValue(props[key])) } : sighting));
}

/** PostHog's label for an exposure without the property. */
export const BREAKDOWN_NULL_LABEL = '$$_posthog_breakdown_null_$$';

/** A property's breakdown value as PostHog's `coalesce(toString(property), null label)` gives it. */
function breakdownValue(value: unknown): string {
  if (value === undefined || value === null) return BREAKDOWN_NULL_LABEL;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
