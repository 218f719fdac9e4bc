export type Properties = Record<string, unknown>;

/** The person-property operations one event carries, read from `properties.$set` etc. */
export interface PropertyUpdates {
  setOnce: Properties | null;
  set: Properties | null;
  unset: readonly string[];
}

export function asObject(value: unknown): Properties | null {
  // Stryker disable next-line ConditionalExpression: equivalent, null passes the other checks and is returned as the null it is
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Properties) : null;
}

/**
 * `$unset` is a list of keys or an object whose keys are unset (PostHog accepts both). Anything else
 * (a bare string, a number) is ignored rather than guessed at.
 */
function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((k): k is string => typeof k === 'string');
  const obj = asObject(value);
  return obj ? Object.keys(obj) : [];
}

/** null when the event touches no person property, so the caller can skip loading the person. */
export function propertyUpdatesOf(eventProperties: Properties): PropertyUpdates | null {
  const setOnce = asObject(eventProperties.$set_once);
  const set = asObject(eventProperties.$set);
  const unset = unsetKeys(eventProperties.$unset);
  if (!setOnce && !set && unset.length === 0) return null;
  return { setOnce, set, unset };
}

const hasOwn = (obj: Properties, key: string) => Object.prototype.hasOwnProperty.call(obj, key);

// Plain assignment of `__proto__` would replace the prototype instead of storing a property.
function setOwn(obj: Properties, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * PostHog compares with `!==`, so re-sending an equal object counts as a change there; comparing by
 * value instead keeps versions from moving when nothing did.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Applies `$set_once` (absent keys only), then `$set` (overwrite), then `$unset`, in PostHog's order.
 * `current` is never mutated; it is returned as is when nothing changed.
 */
export function applyPropertyUpdates(
  current: Properties,
  updates: PropertyUpdates | null,
): { properties: Properties; changed: boolean } {
  if (!updates) return { properties: current, changed: false };
  let next: Properties | null = null;
  const writable = () => (next ??= { ...current });
  if (updates.setOnce) {
    for (const [key, value] of Object.entries(updates.setOnce)) {
      if (!hasOwn(next ?? current, key)) setOwn(writable(), key, value);
    }
  }
  if (updates.set) {
    for (const [key, value] of Object.entries(updates.set)) {
      const target = next ?? current;
      if (!hasOwn(target, key) || !sameValue(target[key], value)) setOwn(writable(), key, value);
    }
  }
  for (const key of updates.unset) {
    if (hasOwn(next ?? current, key)) delete writable()[key];
  }
  return next ? { properties: next, changed: true } : { properties: current, changed: false };
}

/** PostHog strips person operations from events that do not process a person profile. */
export function withoutPersonOperations(properties: Properties): Properties {
  if (!hasOwn(properties, '$set') && !hasOwn(properties, '$set_once') && !hasOwn(properties, '$unset')) {
    return properties;
  }
  const { $set: _set, $set_once: _setOnce, $unset: _unset, ...rest } = properties;
  return rest;
}
