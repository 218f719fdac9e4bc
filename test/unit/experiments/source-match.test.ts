import { describe, expect, it } from 'vitest';
import type { MetricEventRow } from '../../../projections/experiment-metric-queries';
import { readsProperties, sourceMatcher } from '../../../src/experiments/query/source-match';

const NOW = new Date('2026-01-10T00:00:00Z');
const row = (n: string, props: Record<string, unknown> | null): MetricEventRow => ({ p: 'p', n, t: '2026-01-01T00:00:00.000Z', x: null, props: props === null ? null : JSON.stringify(props) });
const source = (properties: Record<string, unknown>[], event: string | null = 'purchase') => ({ kind: 'EventsNode' as const, event, properties: properties as { key: string }[] });

describe('a metric source\'s match', () => {
  it('is the event name alone without filters, and every event without a name', () => {
    expect(sourceMatcher(source([]), NOW)(row('purchase', null))).toBe(true);
    expect(sourceMatcher(source([]), NOW)(row('view', null))).toBe(false);
    expect(sourceMatcher(source([], null), NOW)(row('view', null))).toBe(true);
  });

  it('needs every filter to hold on the event\'s properties, with the flags\' operators', () => {
    const match = sourceMatcher(source([{ key: 'currency', value: 'USD', operator: 'exact', type: 'event' }, { key: 'amount', value: 10, operator: 'gt' }]), NOW);
    expect(match(row('purchase', { currency: 'USD', amount: 12 }))).toBe(true);
    expect(match(row('purchase', { currency: 'USD', amount: 8 }))).toBe(false);
    expect(match(row('purchase', { currency: 'EUR', amount: 12 }))).toBe(false);
    expect(match(row('view', { currency: 'USD', amount: 12 }))).toBe(false);
    expect(sourceMatcher(source([{ key: 'url', value: 'checkout', operator: 'icontains' }]), NOW)(row('purchase', { url: '/CHECKOUT/done' }))).toBe(true);
    expect(sourceMatcher(source([{ key: 'coupon', operator: 'is_set' }]), NOW)(row('purchase', {}))).toBe(false);
  });

  it('holds a negative operator where the property is missing, as PostHog\'s event filters do', () => {
    const notUsd = sourceMatcher(source([{ key: 'currency', value: 'USD', operator: 'is_not' }]), NOW);
    expect(notUsd(row('purchase', {}))).toBe(true);
    expect(notUsd(row('purchase', null))).toBe(true);
    expect(notUsd(row('purchase', { currency: 'USD' }))).toBe(false);
  });

  it('decodes each row\'s properties once, whichever sources read them', () => {
    const decoded = new WeakMap<MetricEventRow, Record<string, unknown>>();
    const a = sourceMatcher(source([{ key: 'k', value: 'a' }]), NOW, decoded);
    const b = sourceMatcher(source([{ key: 'k', value: 'b' }]), NOW, decoded);
    const r = row('purchase', { k: 'a' });
    expect(a(r)).toBe(true);
    const first = decoded.get(r);
    expect(first).toEqual({ k: 'a' });
    expect(b(r)).toBe(false);
    expect(decoded.get(r)).toBe(first);
  });

  it('refuses filter types other than event properties, naming the type', () => {
    for (const type of ['person', 'cohort', 'element', 'hogql']) expect(() => sourceMatcher(source([{ key: 'k', value: 1, type }]), NOW)).toThrow(new RegExp(`type '${type}'`));
    expect(readsProperties([source([]), source([{ key: 'k', value: 1, type: 'event' }])])).toBe(true);
    expect(readsProperties([source([])])).toBe(false);
  });
});
