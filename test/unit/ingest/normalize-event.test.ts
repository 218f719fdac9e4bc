import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';

import { normalizeEvent, type NormalizeContext, type NormalizeResult } from '../../../src/ingest';
import { CapturedEventSchema } from '../../support/captured-event-schema';
import { event, MINTED, NOW, normalizeContext as ctx } from './helpers';


function ingested(result: NormalizeResult) {
  if (!result.ok) throw new Error(`expected an event, got warning ${result.warning.type}`);
  return result.event;
}

function warning(result: NormalizeResult) {
  if (result.ok) throw new Error('expected a warning');
  return result.warning;
}

describe('normalizeEvent: the logged form', () => {
  it('produces a CapturedEvent that satisfies its schema', () => {
    const captured = ingested(normalizeEvent(event({ timestamp: '2024-05-01T11:00:00Z' }), ctx({ historicalMigration: true })));
    expect(CapturedEventSchema.parse(captured)).toEqual(captured);
    expect(captured).toEqual({
      uuid: MINTED,
      event: 'signed up',
      distinct_id: 'user-1',
      properties: { plan: 'pro', $ip: '203.0.113.9' },
      timestamp: '2024-05-01T11:00:00.000Z',
      sent_at: null,
      received_at: '2024-05-01T12:00:00.000Z',
      ip: '203.0.113.9',
      historical_migration: true,
    });
  });

  it('takes the raw properties over without copying, and changes nothing else of the raw event', () => {
    const raw = event({ $set: { a: 1 } });
    const { properties, ...rest } = structuredClone(raw);
    const captured = ingested(normalizeEvent(raw, ctx()));
    expect(captured.properties).toBe(raw.properties);
    expect(captured.properties).toEqual({ ...(properties as object), $ip: '203.0.113.9', $set: { a: 1 } });
    const { properties: _taken, ...after } = raw;
    expect(after).toEqual(rest);
  });

  it('still answers for a raw event without properties (none to take over)', () => {
    const raw = event({ properties: undefined });
    expect(ingested(normalizeEvent(raw, ctx())).properties).toEqual({ $ip: '203.0.113.9' });
    expect(raw.properties).toBeUndefined();
  });

  it('keeps token and distinct_id inside properties, as PostHog stores them', () => {
    const captured = ingested(normalizeEvent(event({ properties: { token: 'phc', distinct_id: 'user-1' } }), ctx()));
    expect(captured.properties).toMatchObject({ token: 'phc', distinct_id: 'user-1' });
  });
});

describe('normalizeEvent: not ingested', () => {
  it.each([
    [{ distinct_id: 'u' }, 'missing_event_name'],
    [{ event: '', distinct_id: 'u' }, 'missing_event_name'],
    [{ event: 42, distinct_id: 'u' }, 'missing_event_name'],
    [{ event: 'e' }, 'missing_distinct_id'],
    [{ event: 'e', distinct_id: null }, 'missing_distinct_id'],
    [{ event: 'e', distinct_id: '' }, 'empty_distinct_id'],
    [{ event: 'e', distinct_id: '   ' }, 'empty_distinct_id'],
    [{ event: 'e', properties: { distinct_id: '' } }, 'empty_distinct_id'],
    [{ event: 'e', distinct_id: 'u', properties: [1] }, 'malformed_event_properties'],
    [{ event: 'e', distinct_id: 'u', uuid: 'not-a-uuid' }, 'invalid_event_uuid'],
    [{ event: 'e', distinct_id: 'u', uuid: 12 }, 'invalid_event_uuid'],
  ])('%j -> %s', (raw, type) => {
    expect(warning(normalizeEvent(raw, ctx())).type).toBe(type);
  });

  it.each([null, 'text', 3, [event()]])('reports a non-object event %j', (raw) => {
    expect(warning(normalizeEvent(raw, ctx())).type).toBe('invalid_event');
  });

  it('says which event the warning is about', () => {
    expect(warning(normalizeEvent({ event: 'e', distinct_id: 'u', uuid: 'nope' }, ctx())).details).toEqual({
      event: 'e',
      eventUuid: '"nope"',
    });
  });
});

describe('normalizeEvent: distinct_id', () => {
  const id = (raw: Record<string, unknown>) => ingested(normalizeEvent({ event: 'e', ...raw }, ctx())).distinct_id;

  it('reads top level, then properties.distinct_id, then $distinct_id', () => {
    expect(id({ distinct_id: 'top', properties: { distinct_id: 'prop' }, $distinct_id: 'dollar' })).toBe('top');
    expect(id({ properties: { distinct_id: 'prop' }, $distinct_id: 'dollar' })).toBe('prop');
    expect(id({ $distinct_id: 'dollar' })).toBe('dollar');
  });

  it('stringifies numbers, booleans and containers', () => {
    expect(id({ distinct_id: 23 })).toBe('23');
    expect(id({ distinct_id: 23.5 })).toBe('23.5');
    expect(id({ distinct_id: true })).toBe('true');
    expect(id({ distinct_id: ['a', 'b'] })).toBe('["a","b"]');
  });

  it('keeps surrounding spaces, replaces NUL and cuts at 200 characters', () => {
    expect(id({ distinct_id: '  hello  ' })).toBe('  hello  ');
    expect(id({ distinct_id: 'a\0b' })).toBe('a\uFFFDb');
    expect(id({ distinct_id: 'x'.repeat(250) })).toBe('x'.repeat(200));
    expect(id({ distinct_id: '🦔'.repeat(150) })).toBe('🦔'.repeat(150));
    expect(id({ distinct_id: '🦔'.repeat(250) })).toBe('🦔'.repeat(200));
  });
});

describe('normalizeEvent: uuid', () => {
  const uuid = (value: unknown) => ingested(normalizeEvent(event({ uuid: value }), ctx())).uuid;

  it('keeps a valid uuid in canonical form', () => {
    const sent = uuidv7();
    expect(uuid(sent)).toBe(sent);
    expect(uuid(sent.toUpperCase())).toBe(sent);
    expect(uuid(sent.replace(/-/g, ''))).toBe(sent);
    expect(uuid(`{${sent}}`)).toBe(sent);
    expect(uuid(`urn:uuid:${sent}`)).toBe(sent);
  });

  it.each([undefined, null, ''])('mints one when the uuid is %j', (value) => {
    expect(uuid(value)).toBe(MINTED);
  });

  it('calls the factory once per event that needs one', () => {
    let calls = 0;
    const factory = () => {
      calls += 1;
      return uuidv7();
    };
    normalizeEvent(event(), ctx({ newUuid: factory }));
    normalizeEvent(event({ uuid: uuidv7() }), ctx({ newUuid: factory }));
    expect(calls).toBe(1);
  });
});

describe('normalizeEvent: $ip', () => {
  const props = (raw: Record<string, unknown>, context: Partial<NormalizeContext> = {}) =>
    ingested(normalizeEvent(event(raw), ctx(context)));

  it('adds the request address when the event has none', () => {
    expect(props({}).properties.$ip).toBe('203.0.113.9');
  });

  it('keeps an explicit $ip, while ip records the request address', () => {
    const captured = props({ properties: { $ip: '198.51.100.1' } });
    expect(captured.properties.$ip).toBe('198.51.100.1');
    expect(captured.ip).toBe('203.0.113.9');
  });

  it('treats a null or empty $ip as absent, as PostHog does', () => {
    expect(props({ properties: { $ip: null } }).properties.$ip).toBe('203.0.113.9');
    expect(props({ properties: { $ip: '' } }).properties.$ip).toBe('203.0.113.9');
  });

  it('adds nothing when the address is unknown', () => {
    const captured = props({}, { ip: undefined });
    expect(captured.properties).not.toHaveProperty('$ip');
    expect(captured.ip).toBeNull();
  });
});

describe('normalizeEvent: $set and $set_once', () => {
  it('merges top-level updates into properties, top level winning', () => {
    const captured = ingested(
      normalizeEvent(
        event({
          $set: { email: 'new@example.com', plan: 'pro' },
          $set_once: { first_seen: 'today' },
          properties: { $set: { email: 'old@example.com', name: 'Ann' }, $set_once: { first_seen: 'earlier', a: 1 } },
        }),
        ctx(),
      ),
    );
    expect(captured.properties.$set).toEqual({ email: 'new@example.com', name: 'Ann', plan: 'pro' });
    expect(captured.properties.$set_once).toEqual({ first_seen: 'today', a: 1 });
    expect(captured.$set).toEqual({ email: 'new@example.com', plan: 'pro' });
    expect(captured.$set_once).toEqual({ first_seen: 'today' });
  });

  it('leaves properties alone without top-level updates', () => {
    const captured = ingested(normalizeEvent(event({ properties: { $set: { a: 1 } } }), ctx()));
    expect(captured.properties.$set).toEqual({ a: 1 });
    expect(captured).not.toHaveProperty('$set');
  });

  it('ignores top-level updates that are not objects', () => {
    const captured = ingested(normalizeEvent(event({ $set: 'x' }), ctx()));
    expect(captured.properties).not.toHaveProperty('$set');
  });
});
