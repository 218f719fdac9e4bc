import { validationError } from '../../errors';

/** What a metric's `filters` (PostHog's legacy insight filters) ask for, in the subset supported. */
export type Metric =
  | { insight: 'FUNNELS'; steps: string[]; windowMs: number }
  | { insight: 'TRENDS'; event: string; math: 'total' | 'dau' };

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
};
/** PostHog's default conversion window. */
const DEFAULT_WINDOW_MS = 14 * DAY_MS;

const asObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

interface Entity {
  id: string;
  order: number;
  math?: unknown;
}

function entitiesOf(filters: Record<string, unknown>, attr: string): Entity[] {
  const actions = filters.actions;
  if (Array.isArray(actions) && actions.length > 0)
    throw validationError('Actions are not supported in experiment metrics; use events.', attr);
  const events = Array.isArray(filters.events) ? filters.events : [];
  return events
    .map((raw, index) => {
      const e = asObject(raw);
      if (typeof e.id !== 'string' || e.id === '') throw validationError('Every metric event needs an event name in "id".', attr);
      const properties = e.properties;
      if (Array.isArray(properties) ? properties.length > 0 : properties !== undefined && properties !== null)
        throw validationError('Event property filters in experiment metrics are not supported.', attr);
      return { id: e.id, order: typeof e.order === 'number' ? e.order : index, math: e.math, index };
    })
    .sort((a, b) => a.order - b.order || a.index - b.index);
}

function windowOf(filters: Record<string, unknown>): number {
  const interval = filters.funnel_window_interval;
  if (typeof interval === 'number' && interval > 0) {
    const unit = String(filters.funnel_window_interval_unit ?? 'day');
    return interval * (UNIT_MS[unit] ?? DAY_MS);
  }
  const days = filters.funnel_window_days;
  return typeof days === 'number' && days > 0 ? days * DAY_MS : DEFAULT_WINDOW_MS;
}

/** Parses a metric; `attr` names the field errors point at (`filters`, `secondary_metrics`). */
export function parseMetric(rawFilters: unknown, attr = 'filters'): Metric {
  const filters = asObject(rawFilters);
  const insight = String(filters.insight ?? 'TRENDS').toUpperCase();
  const entities = entitiesOf(filters, attr);
  if (insight === 'FUNNELS') {
    if (entities.length < 2) throw validationError('A funnel metric needs at least two steps.', attr, 'no_data');
    return { insight: 'FUNNELS', steps: entities.map((e) => e.id), windowMs: windowOf(filters) };
  }
  if (insight !== 'TRENDS') throw validationError(`Unsupported metric insight "${insight}": use FUNNELS or TRENDS.`, attr);
  if (entities.length === 0) throw validationError('A trend metric needs an event.', attr, 'no_data');
  const math = entities[0].math;
  if (math !== undefined && math !== null && math !== 'total' && math !== 'dau')
    throw validationError(`Unsupported trend math "${String(math)}": use total or dau.`, attr);
  return { insight: 'TRENDS', event: entities[0].id, math: math === 'dau' ? 'dau' : 'total' };
}
