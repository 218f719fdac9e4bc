import { describe, expect, it } from 'vitest';
import { summarizeChunk } from '../../../projections/recordings-chunk';
import { extractSnapshots } from '../../../src/recordings';
import { StoredSizeCounter } from '../../../src/recordings/stored-size';
import { snapshotLines } from '../../../streams';

const ev = (properties: Record<string, unknown>) => ({ event: '$snapshot', properties: { distinct_id: 'd', $session_id: 's1', $snapshot_data: [{ type: 2, timestamp: 1 }], ...properties } });

describe('extractSnapshots (capture-rs rules, per-event windows)', () => {
  it('groups by session in request order, keeps each event its window, applies the defaults', () => {
    const out = extractSnapshots(
      [
        ev({ $window_id: 'w1', $snapshot_data: [{ type: 4, timestamp: 1 }, { type: 2, timestamp: 1 }] }),
        ev({ $session_id: 's2', distinct_id: 'e', $snapshot_data: { type: 3, timestamp: 2 } }),
        ev({ $window_id: 'w2', $snapshot_source: 'mobile', $lib: 'posthog-ios' }),
      ],
      'Mozilla/5.0',
    );
    expect(out.map((s) => [s.session_id, s.distinct_id, s.snapshot_source, s.lib, [...snapshotLines(s)].map(([w, e]) => `${w}:${e.type}`)])).toEqual([
      ['s1', 'd', 'web', 'web', ['w1:4', 'w1:2', 'w2:2']],
      ['s2', 'e', 'web', 'web', ['s2:3']],
    ]);
    expect(out[1].snapshot_bytes).toBe(Buffer.byteLength(JSON.stringify([{ window_id: 's2', events: [{ type: 3, timestamp: 2 }] }])));
    expect(out[0].segments.map((g) => [g.window_id, g.events.length])).toEqual([['w1', 2], ['w2', 1]]);
  });

  it('takes $lib from a posthog User-Agent, else web, else unknown', () => {
    expect(extractSnapshots([ev({})], 'posthog-android/3.1.0')[0].lib).toBe('posthog-android');
    expect(extractSnapshots([ev({})], 'curl/8')[0].lib).toBe('web');
    expect(extractSnapshots([ev({})], undefined)[0].lib).toBe('unknown');
  });

  it.each([
    ['a missing session id', { $session_id: undefined }, /\$session_id/],
    ['a session id of 71 chars', { $session_id: 'a'.repeat(71) }, /\$session_id/],
    ['a session id with a dot', { $session_id: 'a.b' }, /\$session_id/],
    ['no distinct id', { distinct_id: undefined }, /distinct_id/],
    ['no snapshot data', { $snapshot_data: undefined }, /\$snapshot_data/],
    ['a string as snapshot data', { $snapshot_data: 'x' }, /\$snapshot_data/],
    ['an array holding a non-object', { $snapshot_data: [{ type: 2 }, null] }, /\$snapshot_data/],
    ['nothing but empty arrays', { $snapshot_data: [] }, /no rrweb events/],
    ['a window id of 71 chars', { $window_id: 'w'.repeat(71) }, /\$window_id/],
    ['a $lib of 201 chars', { $lib: 'l'.repeat(201) }, /\$lib/],
  ])('refuses %s with a 400 naming it', (_name, over, detail) => {
    let error: unknown;
    try {
      extractSnapshots([ev(over)], undefined);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: 400, code: 'invalid_payload', detail: expect.stringMatching(detail) });
  });
});

describe('extractSnapshots: what is stored', () => {
  it('stores the window id once per run of events of one window, and counts snapshot_bytes as the segments serialise', () => {
    const out = extractSnapshots(
      [
        ev({ $window_id: 'w1', $snapshot_data: [{ type: 4, timestamp: 1, data: { href: 'https://x/é' } }, { type: 2, timestamp: 1 }] }),
        ev({ $window_id: 'w1', $snapshot_data: [{ type: 3, timestamp: 2, data: { text: '✓ "quoted"' } }] }),
        ev({ $window_id: 'w\u00e9\n', $snapshot_data: [{ type: 3, timestamp: 3 }] }),
        ev({ $window_id: 'w1', $snapshot_data: [{ type: 3, timestamp: 4 }] }),
      ],
      undefined,
    );
    expect(out[0].segments.map((g) => [g.window_id, g.events.length])).toEqual([['w1', 3], ['w\u00e9\n', 1], ['w1', 1]]);
    expect(out[0].snapshot_bytes).toBe(Buffer.byteLength(JSON.stringify(out[0].segments)));
  });

  it('stamps $snapshot_source mobile or web, never the raw value', () => {
    expect(extractSnapshots([ev({ $snapshot_source: 'mobile' })], undefined)[0].snapshot_source).toBe('mobile');
    expect(extractSnapshots([ev({ $snapshot_source: 'x'.repeat(10_000) })], undefined)[0].snapshot_source).toBe('web');
  });

  it('cuts a $lib taken from a long posthog User-Agent', () => {
    expect(extractSnapshots([ev({})], `posthog-${'x'.repeat(1000)}/1.0`)[0].lib).toHaveLength(200);
  });

  it('refuses with a 413 once what would be stored passes the byte or the event limit, stopping there', () => {
    const many = Array.from({ length: 1000 }, () => ({ type: 3, timestamp: 1, data: 'x'.repeat(100) }));
    const counter = new StoredSizeCounter(50_000, 10_000);
    expect(() => extractSnapshots([ev({ $snapshot_data: many })], undefined, counter)).toThrow(expect.objectContaining({ status: 413, code: 'request_too_large' }));
    expect(counter.total).toBeGreaterThan(50_000);
    expect(counter.total).toBeLessThan(50_300);
    expect(() => extractSnapshots([ev({ $snapshot_data: Array.from({ length: 11 }, () => ({})) })], undefined, new StoredSizeCounter(50_000, 10))).toThrow(
      expect.objectContaining({ status: 413, detail: expect.stringMatching(/at most 10 rrweb events/) }),
    );
  });
});

describe('summarizeChunk', () => {
  it('reads times, the earliest page and activity from rrweb events, ignoring unusable timestamps', () => {
    const s = summarizeChunk([
      ['w', { type: 4, timestamp: 500, data: { href: 'https://x/later' } }],
      ['w', { type: 4, timestamp: 100, data: { href: 'https://x/first' } }],
      ['v', { type: 3, timestamp: 300, data: { source: 2, type: 2 } }],
      ['v', { type: 3, timestamp: 'soon', data: { source: 5 } }],
      ['w', { type: 3, timestamp: 9e15, data: { source: 1 } }],
      ['w', { type: 6, timestamp: 200, data: { plugin: 'rrweb/console@1', payload: { level: 'warn' } } }],
    ]);
    expect(s).toEqual({
      windowIds: ['v', 'w'],
      startTs: 100,
      endTs: 500,
      url: 'https://x/first',
      urlTs: 100,
      clicks: 1,
      keypresses: 1,
      mouseActivity: 2,
      consoleLog: 0,
      consoleWarn: 1,
      consoleError: 0,
    });
  });
});
