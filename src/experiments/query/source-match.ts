import type { MetricEventRow } from '../../../projections/experiment-metric-queries';
import { validationError } from '../../errors';
import { matchProperty } from '../../flags';
import type { MetricSource } from '../metrics/schema';
import type { ActionStep } from '../../../streams';
import { actionMatches, readsProperties as actionReadsProperties } from '../../actions/match';

/** The steps of the actions a metric's ActionsNode sources name, by action id (the runner resolves and checks them). */
export type ResolvedActions = ReadonlyMap<number, readonly ActionStep[]>;
const NO_ACTIONS: ResolvedActions = new Map();

type PropertyFilter = ReturnType<typeof sourceFilters>[number];

/** Whether a metric event counts for one source (a mean's source, a funnel step, a ratio's side). */
export type SourceMatch = (row: MetricEventRow) => boolean;

/** Filter types a metric source may carry here: the event's own properties (PostHog's default). */
const EVENT_FILTER_TYPES = new Set([undefined, null, 'event']);

/** The source's property filters, refused (400) when of a type this service cannot read on an event. */
export function sourceFilters(source: MetricSource) {
  const filters = source.kind === 'EventsNode' ? (source.properties ?? []) : [];
  for (const filter of filters) {
    if (!EVENT_FILTER_TYPES.has(filter.type)) {
      throw validationError(`Property filters of type '${String(filter.type)}' on metric sources are not supported here (only event properties).`, 'query');
    }
  }
  return filters;
}

/** Whether any of the sources filters on properties (their events are then read with them). */
export const readsProperties = (sources: readonly MetricSource[], actions: ResolvedActions = NO_ACTIONS) =>
  sources.some((s) => sourceFilters(s).length > 0 || (s.kind === 'ActionsNode' && actionReadsProperties(stepsOf(s.id, actions))));

/** An ActionsNode's steps; an action the runner did not resolve is refused, never matched as nothing. */
function stepsOf(id: number, actions: ResolvedActions): readonly ActionStep[] {
  const steps = actions.get(id);
  if (!steps) throw validationError(`Action ${id} does not exist.`, 'query');
  return steps;
}

/**
 * The source's match: its event name (none: every event), and each of its property filters (all
 * must hold) evaluated with the flags' operators on the event's properties, as PostHog's HogQL does
 * for event filters (a negative operator holds where the property is missing). Each row's
 * properties are decoded once, whichever sources look at them.
 */
export function sourceMatcher(
  source: MetricSource,
  now: Date,
  decoded: WeakMap<MetricEventRow, Record<string, unknown>> = new WeakMap(),
  actions: ResolvedActions = NO_ACTIONS,
): SourceMatch {
  const propertiesOf = (row: MetricEventRow) => {
    let properties = decoded.get(row);
    if (!properties) {
      properties = decodeProperties(row.props);
      decoded.set(row, properties);
    }
    return properties;
  };
  // An action: any of its steps (actions/match.ts), its events' properties decoded only when a step reads them.
  if (source.kind === 'ActionsNode') {
    const steps = stepsOf(source.id, actions);
    const withProperties = actionReadsProperties(steps);
    return (row) => actionMatches(steps, { event: row.n, properties: withProperties ? propertiesOf(row) : {} }, now);
  }
  const event = source.event ?? null;
  const filters = sourceFilters(source);
  return (row) => {
    if (event !== null && row.n !== event) return false;
    if (filters.length === 0) return true;
    return propertiesMatch(filters, propertiesOf(row), now);
  };
}

/** Whether every filter holds on an event's properties (none: always). */
export function propertiesMatch(filters: readonly PropertyFilter[], properties: Record<string, unknown>, now: Date): boolean {
  for (const filter of filters) if (!matchProperty(filter, properties, now)) return false;
  return true;
}

/** An event's properties from their stored JSON text (absent or not an object: none). */
export function decodeProperties(text: string | null | undefined): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
