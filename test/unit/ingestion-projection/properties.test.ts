import { describe, expect, it } from 'vitest';
import {
  applyPropertyUpdates,
  asObject,
  propertyUpdatesOf,
  sameValue,
  withoutPersonOperations,
} from '../../../projections/ingestion/properties';

describe('asObject', () => {
  it('answers plain objects and nothing else', () => {
    const obj = { a: 1 };
    expect(asObject(obj)).toBe(obj);
    expect(asObject(null)).toBeNull();
    expect(asObject(undefined)).toBeNull();
    expect(asObject([1, 2])).toBeNull();
    expect(asObject('a')).toBeNull();
    expect(asObject(3)).toBeNull();
  });
});

describe('propertyUpdatesOf', () => {
  it('is null when the event touches no person property', () => {
    expect(propertyUpdatesOf({})).toBeNull();
    expect(propertyUpdatesOf({ $set: 'x', $set_once: [1], $unset: 'a' })).toBeNull();
    expect(propertyUpdatesOf({ $unset: [] })).toBeNull();
    expect(propertyUpdatesOf({ $unset: {} })).toBeNull();
  });

  it('reads $set, $set_once and $unset each on its own', () => {
    expect(propertyUpdatesOf({ $set: { a: 1 } })).toEqual({ setOnce: null, set: { a: 1 }, unset: [] });
    expect(propertyUpdatesOf({ $set_once: { b: 2 } })).toEqual({ setOnce: { b: 2 }, set: null, unset: [] });
    expect(propertyUpdatesOf({ $unset: ['c'] })).toEqual({ setOnce: null, set: null, unset: ['c'] });
  });

  it('takes $unset as a list of keys (strings only) or as an object whose keys are unset', () => {
    expect(propertyUpdatesOf({ $unset: ['a', 2, null, 'b'] })?.unset).toEqual(['a', 'b']);
    expect(propertyUpdatesOf({ $unset: { a: 1, b: null } })?.unset).toEqual(['a', 'b']);
    expect(propertyUpdatesOf({ $set: { x: 1 }, $unset: 'a' })?.unset).toEqual([]);
    expect(propertyUpdatesOf({ $set: { x: 1 }, $unset: 7 })?.unset).toEqual([]);
  });
});

describe('sameValue', () => {
  it('compares scalars strictly and objects by value', () => {
    expect(sameValue(1, 1)).toBe(true);
    expect(sameValue('1', 1)).toBe(false);
    expect(sameValue(null, null)).toBe(true);
    expect(sameValue(null, {})).toBe(false);
    expect(sameValue({}, null)).toBe(false);
    expect(sameValue({ a: [1] }, { a: [1] })).toBe(true);
    expect(sameValue({ a: [1] }, { a: [2] })).toBe(false);
    expect(sameValue([1], '[1]')).toBe(false);
    expect(sameValue('[1]', [1])).toBe(false);
  });

  it('never calls values of different kinds equal because their JSON text is', () => {
    // NaN, an invalid date and an object whose toJSON answers a scalar serialise like other values.
    expect(sameValue(NaN, NaN)).toBe(false);
    expect(sameValue(NaN, null)).toBe(false);
    expect(sameValue(null, new Date(NaN))).toBe(false);
    expect(sameValue(new Date(NaN), null)).toBe(false);
    expect(sameValue('x', { toJSON: () => 'x' })).toBe(false);
    expect(sameValue({ toJSON: () => 'x' }, 'x')).toBe(false);
    expect(sameValue(NaN, new Date(NaN))).toBe(false);
    expect(sameValue(new Date(NaN), NaN)).toBe(false);
  });
});

describe('applyPropertyUpdates', () => {
  it('returns the current properties unchanged without updates', () => {
    const current = { a: 1 };
    const result = applyPropertyUpdates(current, null);
    expect(result.properties).toBe(current);
    expect(result.changed).toBe(false);
  });

  it('$set_once writes absent keys only', () => {
    const current = { a: 1 };
    const result = applyPropertyUpdates(current, { setOnce: { a: 2, b: 3 }, set: null, unset: [] });
    expect(result).toEqual({ properties: { a: 1, b: 3 }, changed: true });
    expect(current).toEqual({ a: 1 });
  });

  it('$set_once of a key set earlier in the same $set_once keeps the first', () => {
    const updates = { setOnce: JSON.parse('{"a": 1}'), set: null, unset: [] };
    const result = applyPropertyUpdates({}, updates);
    expect(result.properties).toEqual({ a: 1 });
  });

  it('$set_once of present keys only changes nothing and hands back the same object', () => {
    const current = { a: 1 };
    const result = applyPropertyUpdates(current, { setOnce: { a: 2 }, set: null, unset: [] });
    expect(result.properties).toBe(current);
    expect(result.changed).toBe(false);
  });

  it('$set overwrites, and an equal value (also an equal object) is no change', () => {
    const current = { a: 1, o: { x: [1] } };
    expect(applyPropertyUpdates(current, { setOnce: null, set: { a: 1, o: { x: [1] } }, unset: [] })).toEqual({ properties: current, changed: false });
    expect(applyPropertyUpdates(current, { setOnce: null, set: { a: 1, o: { x: [1] } }, unset: [] }).properties).toBe(current);
    const changed = applyPropertyUpdates(current, { setOnce: null, set: { a: 2 }, unset: [] });
    expect(changed).toEqual({ properties: { a: 2, o: { x: [1] } }, changed: true });
    expect(current.a).toBe(1);
  });

  it('$set of an absent key whose value is undefined still adds it', () => {
    const result = applyPropertyUpdates({}, { setOnce: null, set: { a: undefined }, unset: [] });
    expect(result.changed).toBe(true);
    expect(Object.keys(result.properties)).toEqual(['a']);
  });

  it('$set after $set_once sees what $set_once wrote', () => {
    const result = applyPropertyUpdates({}, { setOnce: { a: 1 }, set: { a: 1, b: 2 }, unset: [] });
    expect(result).toEqual({ properties: { a: 1, b: 2 }, changed: true });
    const over = applyPropertyUpdates({}, { setOnce: { a: 1 }, set: { a: 5 }, unset: [] });
    expect(over.properties).toEqual({ a: 5 });
  });

  it('$unset removes present keys last, and an absent one is no change', () => {
    const current = { a: 1, b: 2 };
    expect(applyPropertyUpdates(current, { setOnce: null, set: null, unset: ['a'] })).toEqual({ properties: { b: 2 }, changed: true });
    expect(current).toEqual({ a: 1, b: 2 });
    const none = applyPropertyUpdates(current, { setOnce: null, set: null, unset: ['z'] });
    expect(none.properties).toBe(current);
    expect(none.changed).toBe(false);
    expect(applyPropertyUpdates({}, { setOnce: { a: 1 }, set: { b: 1 }, unset: ['a', 'b'] })).toEqual({ properties: {}, changed: true });
  });

  it('a key named __proto__ is stored as a property, not as the prototype', () => {
    const updates = { setOnce: null, set: JSON.parse('{"__proto__": {"polluted": true}}'), unset: [] };
    const result = applyPropertyUpdates({}, updates);
    expect(Object.getPrototypeOf(result.properties)).toBe(Object.prototype);
    expect(Object.keys(result.properties)).toEqual(['__proto__']);
    expect(JSON.stringify(result.properties)).toBe('{"__proto__":{"polluted":true}}');
    const once = applyPropertyUpdates({}, { setOnce: JSON.parse('{"__proto__": 1}'), set: null, unset: [] });
    expect(Object.keys(once.properties)).toEqual(['__proto__']);
  });

  it('inherited names such as toString are absent keys', () => {
    const result = applyPropertyUpdates({}, { setOnce: { toString: 'x' }, set: { constructor: 'y' }, unset: ['hasOwnProperty'] });
    expect(result.properties).toEqual({ toString: 'x', constructor: 'y' });
    expect(result.changed).toBe(true);
  });

  it('written keys stay writable, enumerable and deletable', () => {
    const result = applyPropertyUpdates({}, { setOnce: null, set: { a: 1 }, unset: [] });
    const descriptor = Object.getOwnPropertyDescriptor(result.properties, 'a');
    expect(descriptor).toEqual({ value: 1, writable: true, enumerable: true, configurable: true });
  });
});

describe('withoutPersonOperations', () => {
  it('strips $set, $set_once and $unset, keeping the rest', () => {
    expect(withoutPersonOperations({ $set: {}, a: 1 })).toEqual({ a: 1 });
    expect(withoutPersonOperations({ $set_once: {}, a: 1 })).toEqual({ a: 1 });
    expect(withoutPersonOperations({ $unset: [], a: 1 })).toEqual({ a: 1 });
    expect(withoutPersonOperations({ $set: 1, $set_once: 2, $unset: 3, b: 2 })).toEqual({ b: 2 });
  });

  it('hands back the same object when there is nothing to strip', () => {
    const props = { a: 1 };
    expect(withoutPersonOperations(props)).toBe(props);
    const inherited = Object.create({ $set: { a: 1 } }) as Record<string, unknown>;
    expect(withoutPersonOperations(inherited)).toBe(inherited);
  });
});
