import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { normalizeEvent, type NormalizeContext, parseClientDate } from '../../../src/ingest';
import { CapturedEventSchema } from '../../support/captured-event-schema';
import { NOW } from './helpers';

const ctx = (overrides: Partial<NormalizeContext> = {}): NormalizeContext => ({
  now: NOW, // 2024-05-01T12:00:00.000Z
  ip: undefined,
  sentAt: undefined,
  historicalMigration: false,
  newUuid: () => '01890a5d-ac96-774b-bcce-b302099a8057',
  ...overrides,
});

function timestampOf(raw: Record<string, unknown>, context: Partial<NormalizeContext> = {}): string {
  const result = normalizeEvent({ event: 'e', distinct_id: 'u', ...raw }, ctx(context));
  if (!result.ok) throw new Error(result.warning.type);
  return result.event.timestamp;
}

describe('timestamp correction', () => {
  it('re-anchors on now with a request-level sent_at (client clock 10 s ahead)', () => {
    expect(timestampOf({ timestamp: '2024-05-01T11:00:10Z' }, { sentAt: '2024-05-01T12:00:10Z' })).toBe(
      '2024-05-01T11:00:00.000Z',
    );
  });

  it('re-anchors on now with an event-level sent_at (client clock behind), which wins', () => {
    const raw = { timestamp: '2024-05-01T10:59:50Z', sent_at: '2024-05-01T11:59:50Z' };
    expect(timestampOf(raw, { sentAt: '2030-01-01T00:00:00Z' })).toBe('2024-05-01T11:00:00.000Z');
  });

  it('skips the skew correction with $ignore_sent_at', () => {
    const raw = { timestamp: '2024-05-01T11:00:10Z', properties: { $ignore_sent_at: true } };
    expect(timestampOf(raw, { sentAt: '2024-05-01T12:00:10Z' })).toBe('2024-05-01T11:00:10.000Z');
  });

  it('uses now - offset without sent_at', () => {
    expect(timestampOf({ offset: 1500 })).toBe('2024-05-01T11:59:58.500Z');
    expect(timestampOf({ offset: 1500, timestamp: '2020-01-01T00:00:00Z' })).toBe('2024-05-01T11:59:58.500Z');
  });

  it('prefers the sent_at correction over offset', () => {
    expect(timestampOf({ offset: 1500, timestamp: '2024-05-01T11:00:10Z' }, { sentAt: '2024-05-01T12:00:10Z' })).toBe(
      '2024-05-01T11:00:00.000Z',
    );
  });

  it('uses offset when sent_at is ignored', () => {
    const raw = { offset: 1000, timestamp: '2024-05-01T11:00:10Z', properties: { $ignore_sent_at: true } };
    expect(timestampOf(raw, { sentAt: '2024-05-01T12:00:10Z' })).toBe('2024-05-01T11:59:59.000Z');
  });

  it("keeps the event's timestamp when nothing else is known", () => {
    expect(timestampOf({ timestamp: '2023-02-03T04:05:06.789+02:00' })).toBe('2023-02-03T02:05:06.789Z');
  });

  it('falls back to now without a timestamp, even with sent_at', () => {
    expect(timestampOf({})).toBe(NOW.toISOString());
    expect(timestampOf({}, { sentAt: '2024-05-01T12:00:10Z' })).toBe(NOW.toISOString());
  });

  it('falls back to now, silently, for an unparseable timestamp', () => {
    const result = normalizeEvent({ event: 'e', distinct_id: 'u', timestamp: 'yesterday-ish' }, ctx());
    expect(result).toMatchObject({ ok: true, event: { timestamp: NOW.toISOString() } });
  });

  it('ignores an unparseable sent_at', () => {
    const result = normalizeEvent({ event: 'e', distinct_id: 'u', timestamp: '2024-05-01T11:00:00Z' }, ctx({ sentAt: 'soon' }));
    expect(result).toMatchObject({ ok: true, event: { timestamp: '2024-05-01T11:00:00.000Z', sent_at: null } });
  });

  it('records the sent_at in effect', () => {
    const result = normalizeEvent({ event: 'e', distinct_id: 'u' }, ctx({ sentAt: '2024-05-01T14:00:10+02:00' }));
    expect(result).toMatchObject({ ok: true, event: { sent_at: '2024-05-01T12:00:10.000Z' } });
  });

  it('clamps events more than 23 h in the future to now', () => {
    expect(timestampOf({ timestamp: '2024-05-02T11:00:00Z' })).toBe('2024-05-02T11:00:00.000Z');
    expect(timestampOf({ timestamp: '2024-05-02T11:00:00.001Z' })).toBe(NOW.toISOString());
    expect(timestampOf({ offset: -24 * 3600 * 1000 })).toBe(NOW.toISOString());
    expect(timestampOf({ timestamp: '2030-01-01T00:00:00Z' }, { sentAt: '2024-05-01T12:00:00Z' })).toBe(NOW.toISOString());
  });

  it('falls back to now for times a 4-digit year cannot express', () => {
    expect(timestampOf({ offset: 1e15 })).toBe(NOW.toISOString());
    expect(timestampOf({ offset: 1e300 })).toBe(NOW.toISOString());
    expect(timestampOf({ timestamp: '2024-05-01T11:00:00Z' }, { sentAt: '1e30' })).toBe('2024-05-01T11:00:00.000Z');
  });

  it('keeps old historical timestamps untouched', () => {
    expect(timestampOf({ timestamp: '2015-06-30T23:59:59Z' }, { historicalMigration: true })).toBe('2015-06-30T23:59:59.000Z');
  });
});

describe('timestamp correction, any input', () => {
  const dateLike = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.date({ noInvalidDate: true }).map((d) => d.getTime()),
    fc.string({ maxLength: 30 }),
    fc.double(),
    fc.constant(undefined),
  );

  it('always yields a valid ISO timestamp no later than now + 23 h', () => {
    fc.assert(
      fc.property(dateLike, dateLike, fc.option(fc.double(), { nil: undefined }), fc.boolean(), (timestamp, sentAt, offset, ignore) => {
        const raw = { event: 'e', distinct_id: 'u', timestamp, sent_at: sentAt, offset, properties: { $ignore_sent_at: ignore } };
        const result = normalizeEvent(raw, ctx());
        if (!result.ok) throw new Error(result.warning.type);
        CapturedEventSchema.parse(result.event);
        expect(Date.parse(result.event.timestamp) - NOW.getTime()).toBeLessThanOrEqual(23 * 3600 * 1000);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the client-side age of an event exactly (sent_at - timestamp)', () => {
    const client = fc.date({ min: new Date('2001-01-01'), max: new Date('2099-01-01'), noInvalidDate: true });
    fc.assert(
      fc.property(client, fc.integer({ min: 0, max: 365 * 86_400_000 }), (sentAt, age) => {
        const timestamp = new Date(sentAt.getTime() - age).toISOString();
        const result = normalizeEvent({ event: 'e', distinct_id: 'u', timestamp }, ctx({ sentAt: sentAt.toISOString() }));
        expect(result).toMatchObject({ ok: true, event: { timestamp: new Date(NOW.getTime() - age).toISOString() } });
      }),
      { numRuns: 200 },
    );
  });
});

describe('parseClientDate', () => {
  const iso = (value: unknown) => {
    const ms = parseClientDate(value);
    return ms === undefined ? undefined : new Date(ms).toISOString();
  };

  it.each([
    ['2023-01-01T12:00:00Z', '2023-01-01T12:00:00.000Z'],
    ['2023-01-01T12:00:00.123456Z', '2023-01-01T12:00:00.123Z'],
    ['2023-01-01t12:00:00z', '2023-01-01T12:00:00.000Z'],
    ['2025-09-17T14:05:04.805+03', '2025-09-17T11:05:04.805Z'],
    ['2025-09-17T14:05:04-0530', '2025-09-17T19:35:04.000Z'],
    ['2023-01-01T12:00:00', '2023-01-01T12:00:00.000Z'],
    ['2023-01-01 12:00:00', '2023-01-01T12:00:00.000Z'],
    ['2023-01-01', '2023-01-01T00:00:00.000Z'],
    ['2024/02/29', '2024-02-29T00:00:00.000Z'],
    ['12/31/2023 08:30', '2023-12-31T08:30:00.000Z'],
    ['Tue, 1 Jul 2003 10:52:37 +0200', '2003-07-01T08:52:37.000Z'],
    ['1672574400', '2023-01-01T12:00:00.000Z'],
    ['1672574400000', '2023-01-01T12:00:00.000Z'],
    ['1672574400.5', '2023-01-01T12:00:00.500Z'],
    [1672574400000, '2023-01-01T12:00:00.000Z'],
    ['0099-01-01T00:00:00Z', '0099-01-01T00:00:00.000Z'],
  ])('%j -> %s', (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it.each(['', '1e30', 1e30, '-99999999999', 'tomorrow', '2023-02-30', '2023-13-01', '2023-01-01T25:00:00Z', '2023-01-01T12:00:00+24:00', '01/02/03', null, {}, true])(
    'rejects %j',
    (input) => {
      expect(parseClientDate(input)).toBeUndefined();
    },
  );
});
