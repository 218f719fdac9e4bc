import { stableJson } from '../json';
import { SECRET_MARK, type ActivityScope, type ItemState } from './transitions';

/** One field's change, in PostHog's shape (compat §12). */
export interface ActivityChange {
  type: ActivityScope;
  action: 'created' | 'changed' | 'deleted';
  field: string;
  before: unknown;
  after: unknown;
}

/** A value as the API shows it: secret fingerprints become PostHog's "masked". */
export function shown(value: unknown): unknown {
  if (typeof value === 'string') return value.startsWith(SECRET_MARK) ? 'masked' : value;
  if (Array.isArray(value)) return value.map(shown);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shown(v)]));
  return value;
}

/**
 * The fields that differ between two states (absent = null), in field-name order (states are kept
 * as sorted JSON, so any other order would depend on which event wrote them). Compared as sorted
 * JSON, so key order inside a value is no change.
 */
export function changesBetween(scope: ActivityScope, before: ItemState | null, after: ItemState | null): ActivityChange[] {
  const action = before === null ? 'created' : after === null ? 'deleted' : 'changed';
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
  const out: ActivityChange[] = [];
  for (const field of fields) {
    if (field.startsWith('_')) continue;
    const was = before?.[field] ?? null;
    const now = after?.[field] ?? null;
    if (stableJson(was) === stableJson(now)) continue;
    out.push({ type: scope, action, field, before: shown(was), after: shown(now) });
  }
  return out;
}
