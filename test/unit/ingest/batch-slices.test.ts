import { describe, expect, it } from 'vitest';
import { MAX_EVENT_CHARS, MAX_JSON_VALUES_PER_REQUEST, SLICE_EVENTS } from '../../../src/ingest/batch-limits';
import { sliceBatch } from '../../../src/ingest/batch-slices';
import { jsonValuesAtMost } from '../../../src/ingest/json-values';
import { LargeBatch } from '../../../src/ingest/large-batch';

const sliced = (payload: unknown, query: Record<string, string | undefined> = {}) => {
  const outcome = sliceBatch(Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)));
  if (!outcome.ok) throw new Error(outcome.refusal.detail);
  return new LargeBatch(outcome.batch, query);
};

const eventsOf = (batch: LargeBatch) => {
  const out: unknown[] = [];
  for (let i = 0; i < batch.sliceCount; i++) {
    const s = batch.slice(i);
    out.push(...('events' in s ? s.events : [{ oversized: s.oversized }]));
  }
  return out;
};

describe('sliceBatch (decode thread) and LargeBatch (event loop)', () => {
  it('gives back the request fields and every event, in order, in slices of at most SLICE_EVENTS', () => {
    const batch = Array.from({ length: SLICE_EVENTS * 2 + 5 }, (_, i) => ({ event: 'e', distinct_id: 'd', properties: { i, '\u00e9': 'ü' } }));
    const large = sliced({ api_key: 'phc_k', historical_migration: true, sent_at: '2026-01-01T00:00:00Z', batch });
    expect(large).toMatchObject({ apiKey: 'phc_k', historicalMigration: true, sentAt: '2026-01-01T00:00:00Z', eventCount: batch.length });
    expect(large.sliceCount).toBe(3);
    expect(eventsOf(large)).toEqual(batch);
  });

  it('keeps the other payload shapes and the key of the first event', () => {
    expect(sliced([{ event: 'a', api_key: 'phc_a' }])).toMatchObject({ apiKey: 'phc_a', eventCount: 1 });
    expect(eventsOf(sliced({ event: 'single', token: 'phc_s' }))).toEqual([{ event: 'single', token: 'phc_s' }]);
    expect(sliced({ batch: [] }).sliceCount).toBe(0);
  });

  it("takes posthog-js's `_` send time when the envelope has no sent_at, as extractBatch does", () => {
    const ms = Date.UTC(2026, 10, 27, 12, 0, 0);
    expect(sliced([{ event: 'a' }], { _: String(ms) }).sentAt).toBe(new Date(ms).toISOString());
    expect(sliced({ sent_at: '2026-01-01T00:00:00Z', batch: [{ event: 'a' }] }, { _: String(ms) }).sentAt).toBe('2026-01-01T00:00:00Z');
  });

  it('flags an event past MAX_EVENT_CHARS in its place instead of slicing it', () => {
    const big = { event: 'big', uuid: 'u-1', properties: { pad: 'x'.repeat(MAX_EVENT_CHARS) } };
    const events = eventsOf(sliced([{ event: 'a' }, big, { event: 'b' }]));
    expect(events).toHaveLength(3);
    expect(events[0]).toEqual({ event: 'a' });
    expect(events[1]).toEqual({ oversized: { event: 'big', eventUuid: '"u-1"', chars: JSON.stringify(big).length } });
    expect(events[2]).toEqual({ event: 'b' });
  });

  it('refuses as the event loop would: malformed, too deep, and past the value count before parsing', () => {
    const refusal = (text: string) => {
      const outcome = sliceBatch(Buffer.from(text));
      return outcome.ok ? undefined : outcome.refusal;
    };
    expect(refusal('[{"event": ')).toMatchObject({ status: 400, code: 'invalid_payload' });
    expect(refusal('['.repeat(100) + ']'.repeat(100))).toMatchObject({ status: 400, code: 'invalid_payload' });
    expect(refusal('5')).toMatchObject({ status: 400 });
    const values = `[${'1,'.repeat(MAX_JSON_VALUES_PER_REQUEST)}1]`;
    expect(refusal(values)).toMatchObject({ status: 413, code: 'request_too_large' });
  });

  it('counts JSON values on bytes, ignoring commas and brackets inside strings', () => {
    expect(jsonValuesAtMost(Buffer.from('[1,2,{"a":[3]}]'), 100)).toBe(6);
    expect(jsonValuesAtMost(Buffer.from('["a,[{b", "c\\",d"]'), 100)).toBe(3);
    expect(jsonValuesAtMost(Buffer.from('[{},{},{},{}]'), 2)).toBe(3);
  });
});
