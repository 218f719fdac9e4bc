import type { ExperimentMetricReads } from '../../store/analytics';
import type { ExposureSighting } from './exposure-assignment';
import type { ExperimentRow } from '../../../projections/experiments-queries';
import { validationError } from '../../errors';
import { EventsNode } from '../metrics/schema';
import { decodeProperties, propertiesMatch, sourceFilters } from './source-match';
import type { ActionQueries } from '../../../projections/actions-queries';
import type { ExposureEventRow } from '../../store/analytics';
import { actionMatches, checkAction, stepEvents } from '../../actions/match';

/**
 * Per (entity, variant) the first exposure in [start, end], by the experiment's exposure criteria:
 * `$feature_flag_called` for its flag, or a custom exposure event carrying `$feature/<key>`; with
 * the criteria's property filters (event properties, as a metric source's), only the exposure
 * events they all hold for; with `breakdowns`, each first exposure's values of those event
 * properties (PostHog attributes breakdowns from the exposure). An action as the exposure
 * (`{kind: "ActionsNode", id}`): the events it matches, each carrying `$feature/<key>` as a custom
 * exposure event does; `actions` looks it up (none given: every action is unknown, a 400).
 */
export async function exposureSightings(
  metricQueries: ExperimentMetricReads,
  projectId: number,
  experiment: ExperimentRow,
  start: number,
  end: number,
  breakdowns: readonly string[] = [],
  actions?: Pick<ActionQueries, 'byId'>,
): Promise<ExposureSighting[]> {
  const config = experiment.exposure_criteria?.exposure_config as { kind?: string; event?: unknown; properties?: unknown; id?: unknown } | undefined;
  if (config && config.kind === 'ActionsNode') return actionSightings(metricQueries, projectId, experiment, { from: new Date(start).toISOString(), to: new Date(end).toISOString() }, new Date(end), breakdowns, config.id, actions);
  const customEvent = config && typeof config.event === 'string' && config.event !== '$feature_flag_called' ? config.event : null;
  const span = { from: new Date(start).toISOString(), to: new Date(end).toISOString() };
  const criteria = EventsNode.safeParse({ kind: 'EventsNode', properties: Array.isArray(config?.properties) ? config.properties : [] });
  if (!criteria.success) throw validationError('The exposure criteria\'s property filters are invalid: each needs a key.', 'query');
  const filters = sourceFilters(criteria.data);
  if (filters.length === 0 && breakdowns.length === 0) return metricQueries.exposures(projectId, experiment.feature_flag_key, customEvent, span);
  const now = new Date(end);
  const rows = await metricQueries.exposureEvents(projectId, experiment.feature_flag_key, customEvent, span);
  return firstSightings(rows, (properties) => propertiesMatch(filters, properties, now), breakdowns);
}

/** Per (entity, variant) the first of the exposure events `keep` holds for, with its breakdown values. */
function firstSightings(rows: Iterable<ExposureEventRow>, keep: (properties: Record<string, unknown>, row: ExposureEventRow) => boolean, breakdowns: readonly string[]): ExposureSighting[] {
  const first = new Map<string, ExposureSighting & { props: Record<string, unknown> }>();
  for (const row of rows) {
    const properties = decodeProperties(row.props);
    if (!keep(properties, row)) continue;
    const key = JSON.stringify([row.p, row.v]);
    const seen = first.get(key);
    if (!seen || row.t < seen.t) first.set(key, { p: row.p, v: row.v, t: row.t, props: properties });
  }
  return [...first.values()].map(({ props, ...sighting }) => (breakdowns.length ? { ...sighting, b: breakdowns.map((key) => breakdownValue(props[key])) } : sighting));
}

/**
 * An action as the exposure: the exposure events of each of its steps' names (the variant in
 * `$feature/<key>`), kept where the action matches them; refused (400, naming it) as a metric
 * source's action is when unknown, deleted, another project's, or not one this service can evaluate.
 */
async function actionSightings(
  metricQueries: ExperimentMetricReads,
  projectId: number,
  experiment: ExperimentRow,
  span: { from: string; to: string },
  now: Date,
  breakdowns: readonly string[],
  id: unknown,
  actions: Pick<ActionQueries, 'byId'> | undefined,
): Promise<ExposureSighting[]> {
  const action = typeof id === 'number' ? await actions?.byId(projectId, id) : undefined;
  if (!action || action.deleted) throw validationError(`Exposure criteria: action ${String(id)} does not exist.`, 'query');
  const steps = action.fields.steps;
  checkAction({ id: action.id, steps });
  const rows: ExposureEventRow[] = [];
  const names = new Map<ExposureEventRow, string>();
  for (const name of stepEvents(steps)) {
    for (const row of await metricQueries.exposureEvents(projectId, experiment.feature_flag_key, name, span)) {
      rows.push(row);
      names.set(row, name);
    }
  }
  return firstSightings(rows, (properties, row) => actionMatches(steps, { event: names.get(row)!, properties }, now), breakdowns);
}

/** PostHog's label for an exposure without the property. */
export const BREAKDOWN_NULL_LABEL = '$$_posthog_breakdown_null_$$';

/** A property's breakdown value as PostHog's `coalesce(toString(property), null label)` gives it. */
function breakdownValue(value: unknown): string {
  if (value === undefined || value === null) return BREAKDOWN_NULL_LABEL;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
