import type { ActionStep } from '../../streams';
import { validationError } from '../errors';
import { matchProperty, regexSearch } from '../flags';
import type { PropertyFilter } from '../flags/types';

/** An event as an action looks at it: its name and its (decoded) properties. */
export interface MatchedEvent {
  event: string;
  properties: Record<string, unknown>;
}

/** The one action whose steps are being checked, for the messages. */
export interface ActionRef {
  id: number;
  steps: readonly ActionStep[];
}

/** Filter types an action step may carry here: the event's own properties (PostHog's default). */
const EVENT_FILTER_TYPES = new Set<unknown>([undefined, null, 'event']);
/** Element fields PostHog reads from `$autocapture` events only (on other events it ignores them). */
const ELEMENT_FIELDS = ['selector', 'tag_name', 'text', 'href'] as const;

const refuse = (action: ActionRef, step: number, why: string): never => {
  throw validationError(`Action ${action.id} step ${step + 1}: ${why} is not supported here.`, 'query');
};

/**
 * The action's steps as filters this service can evaluate, refused (400, naming the action, the
 * step and the field) where a step asks for something it cannot read: any event (no event name: the
 * events are read by name), element fields of an `$autocapture` step (no elements chain here),
 * property filters other than event properties. No step at all matches every event in PostHog: refused too.
 */
export function checkAction(action: ActionRef): void {
  if (action.steps.length === 0) throw validationError(`Action ${action.id} has no steps (it would match every event), which is not supported here.`, 'query');
  for (const [i, step] of action.steps.entries()) {
    if (!step.event) refuse(action, i, 'a step without an event (matching any event)');
    if (step.event === '$autocapture') for (const field of ELEMENT_FIELDS) if (step[field] !== null) refuse(action, i, `matching on '${field}' (the elements chain)`);
    for (const filter of step.properties ?? []) {
      if (typeof filter.key !== 'string') refuse(action, i, 'a property filter without a key');
      if (!EVENT_FILTER_TYPES.has(filter.type)) refuse(action, i, `a property filter of type '${String(filter.type)}' (only event properties)`);
    }
  }
}

/** The event names the action's steps match (checkAction has made sure each step has one). */
export const stepEvents = (steps: readonly ActionStep[]): string[] => [...new Set(steps.flatMap((s) => (s.event ? [s.event] : [])))];

/** Whether matching needs the events' properties (a URL or a property filter on some step). */
export const readsProperties = (steps: readonly ActionStep[]): boolean => steps.some((s) => s.url !== null || (s.properties?.length ?? 0) > 0);

/**
 * `$current_url` against the step's URL as PostHog's action_to_expr compares it: `exact` equal,
 * `regex` a search, otherwise (`contains`, the default, or null) a case-sensitive substring
 * (PostHog's LIKE '%url%'; its `%`/`_` wildcards inside the URL are taken literally here). A
 * missing URL matches nothing.
 */
function urlMatches(step: ActionStep, properties: Record<string, unknown>): boolean {
  if (!step.url) return true;
  const raw = properties.$current_url;
  if (raw === undefined || raw === null) return false;
  const url = typeof raw === 'string' ? raw : JSON.stringify(raw);
  if (step.url_matching === 'exact') return url === step.url;
  if (step.url_matching === 'regex') return regexSearch(step.url, url) === true;
  return url.includes(step.url);
}

/** A stored step filter as the flags' operators read it (checkAction has made sure it has a key). */
const asFilter = (f: Record<string, unknown>): PropertyFilter => ({
  key: String(f.key),
  value: f.value,
  operator: typeof f.operator === 'string' ? f.operator : null,
  type: typeof f.type === 'string' ? f.type : null,
});

/** One step: every field it sets holds (event name, URL, each property filter with the flags' operators). */
export function stepMatches(step: ActionStep, e: MatchedEvent, now: Date): boolean {
  if (step.event && e.event !== step.event) return false;
  if (!urlMatches(step, e.properties)) return false;
  for (const filter of step.properties ?? []) if (!matchProperty(asFilter(filter), e.properties, now)) return false;
  return true;
}

/** An event matches an action when any of its steps does. */
export const actionMatches = (steps: readonly ActionStep[], e: MatchedEvent, now: Date): boolean => steps.some((step) => stepMatches(step, e, now));
