import { describe, expect, it } from 'vitest';
import { summarizeChunk } from '../../../projections/recordings-chunk';
import { extractSnapshots } from '../../../src/recordings';

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
    expect(out.map((s) => [s.session_id, s.distinct_id, s.snapshot_source, s.lib, s.snapshots.map(([w, e]) => `${w}:${e.type}`)])).toEqual([
      ['s1', 'd', 'web', 'web', ['w1:4', 'w1:2', 'w2:2']],
      ['s2', 'e', 'web', 'web', ['s2:3']],
    ]);
    expect(out[1].snapshot_bytes).toBe(Buffer.byteLength(JSON.stringify([['s2', { type: 3, timestamp: 2 }]])));
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
