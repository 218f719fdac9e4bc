// Edges of ingestion normalisation (distinct ids, group names, uuids, timestamps, the batch
// envelope, the logged event) that the broader tests pass over. Written against surviving mutants
// (docs/mutation.md).
import { describe, expect, it } from 'vitest';
import { extractBatch, normalizeEvent, resolveTimestamp, sentAtFromQuery, type NormalizeContext } from '../../../src/ingest';
import { dropNonFiniteIds, extractDistinctId } from '../../../src/ingest/distinct-id';
import { dropUnusableGroups, isAcceptableGroupType } from '../../../src/ingest/event-groups';
import { canonicalUuid } from '../../../src/ingest/event-uuid';
import { requestContext } from '../../../src/ingest/normalize-event';
import { MINTED, NOW, normalizeContext as ctx } from './helpers';

const ok = (raw: unknown, context: NormalizeContext = ctx()) => {
  const result = normalizeEvent(raw, context);
  if (!result.ok) throw new Error(`warning ${result.warning.type}`);
  return result.event;
};
const warned = (raw: unknown) => {
  const result = normalizeEvent(raw, ctx());
  if (result.ok) throw new Error('expected a warning');
  return result.warning;
};

describe('distinct ids', () => {
  it('null anywhere in the chain is missing', () => {
    expect(extractDistinctId({ $distinct_id: null }, {})).toEqual({ ok: false, reason: 'missing_distinct_id' });
    expect(extractDistinctId({ distinct_id: null }, { distinct_id: 'p' })).toEqual({ ok: true, value: 'p' });
  });

  it('replaces NUL, stringifies JSON values, refuses blank ones', () => {
    expect(extractDistinctId({ distinct_id: 'a\0b' }, {})).toEqual({ ok: true, value: 'a\uFFFDb' });
    expect(extractDistinctId({ distinct_id: 12 }, {})).toEqual({ ok: true, value: '12' });
    expect(extractDistinctId({ distinct_id: { a: 1 } }, {})).toEqual({ ok: true, value: '{"a":1}' });
    expect(extractDistinctId({ distinct_id: '  ' }, {})).toEqual({ ok: false, reason: 'empty_distinct_id' });
  });

  it('cuts to 200 code points, not UTF-16 units', () => {
    const emoji = '😀';
    expect(extractDistinctId({ distinct_id: emoji.repeat(150) }, {})).toEqual({ ok: true, value: emoji.repeat(150) });
    expect(extractDistinctId({ distinct_id: emoji.repeat(201) }, {})).toEqual({ ok: true, value: emoji.repeat(200) });
    expect(extractDistinctId({ distinct_id: 'x'.repeat(201) }, {})).toEqual({ ok: true, value: 'x'.repeat(200) });
  });

  it('drops non-finite merge ids only', () => {
    const properties = { $anon_distinct_id: Infinity, alias: -Infinity, other: Infinity, kept: 5 };
    dropNonFiniteIds(properties);
    expect(properties).toEqual({ other: Infinity, kept: 5 });
    const fine = { $anon_distinct_id: 'a', alias: 7 };
    dropNonFiniteIds(fine);
    expect(fine).toEqual({ $anon_distinct_id: 'a', alias: 7 });
  });
});

describe('group names', () => {
  it('a type is non-empty, at most 400 characters, and not a name of Object.prototype', () => {
    expect(isAcceptableGroupType('company')).toBe(true);
    expect(isAcceptableGroupType('t'.repeat(400))).toBe(true);
    expect(isAcceptableGroupType('t'.repeat(401))).toBe(false);
    expect(isAcceptableGroupType('')).toBe(false);
    expect(isAcceptableGroupType('constructor')).toBe(false);
  });

  it('$groups: drops bad types and over-long keys, reports the first 64 characters of each type', () => {
    const long = 'a'.repeat(401);
    const properties = { $groups: { company: 'k'.repeat(400), [long]: 'x', team: 'k'.repeat(401), count: 5 } };
    const warning = dropUnusableGroups('$pageview', properties);
    expect(properties.$groups).toEqual({ company: 'k'.repeat(400), count: 5 });
    expect(warning).toEqual({
      type: 'invalid_group',
      details: {
        groupTypes: ['a'.repeat(64), 'team'],
        reason: 'a group type must not be a name of Object.prototype, types and keys at most 400 characters',
      },
    });
    expect(dropUnusableGroups('$pageview', { $groups: { company: 'acme' } })).toBeUndefined();
  });

  it('$groupidentify (both spellings): drops the group type it cannot use, and only there', () => {
    const bad = { $group_type: 'constructor', $group_key: 'k' };
    expect(dropUnusableGroups('$group_identify', bad)).toMatchObject({ details: { groupTypes: ['constructor'] } });
    expect(bad).toEqual({ $group_key: 'k' });
    const longKey = { $group_type: 'company', $group_key: 'k'.repeat(401) };
    expect(dropUnusableGroups('$groupidentify', longKey)).toMatchObject({ details: { groupTypes: ['company'] } });
    expect(longKey).toEqual({ $group_key: 'k'.repeat(401) });
    const longType = { $group_type: 'b'.repeat(401) };
    expect(dropUnusableGroups('$groupidentify', longType)).toMatchObject({ details: { groupTypes: ['b'.repeat(64)] } });
    for (const [event, properties] of [
      ['$pageview', { $group_type: 'constructor' }],
      ['$groupidentify', { $group_type: 5 }],
      ['$groupidentify', { $group_type: 'company', $group_key: 'acme' }],
    ] as const) {
      const copy = { ...properties };
      expect(dropUnusableGroups(event, copy), event).toBeUndefined();
      expect(copy).toEqual(properties);
    }
  });
});

describe('event uuids', () => {
  const uuid = '0123abcd-4567-89ab-cdef-0123456789ab';
  it('accepts the spellings PostHog does, in any case, around spaces', () => {
    for (const spelling of [uuid, uuid.toUpperCase(), `  ${uuid}  `, `{${uuid}}`, `urn:uuid:${uuid}`, uuid.replace(/-/g, ''), ` {${uuid.toUpperCase()}} `]) {
      expect(canonicalUuid(spelling), spelling).toBe(uuid);
    }
  });

  it('refuses hyphens out of place, a half brace, and anything not 32 hex digits', () => {
    for (const bad of ['0123abcd4567-89ab-cdef-0123-456789ab', `{${uuid}`, `${uuid}}`, `${uuid}0`, 'not-a-uuid', '0123abcd-4567-89ab-cdef0123456789ab-', `{${uuid}z`, `z${uuid}}`]) {
      expect(canonicalUuid(bad), bad).toBeUndefined();
    }
  });
});

describe('timestamps', () => {
  const now = NOW.getTime();
  it('says where the time came from and whether it was clamped', () => {
    expect(resolveTimestamp({ now: NOW, timestampMs: now - 5000, sentAtMs: now - 1000, offsetMs: undefined })).toEqual({ timestamp: new Date(now - 4000), source: 'sent_at_skew', clamped: false });
    expect(resolveTimestamp({ now: NOW, timestampMs: undefined, sentAtMs: now - 1000, offsetMs: 3000 })).toEqual({ timestamp: new Date(now - 3000), source: 'offset', clamped: false });
    expect(resolveTimestamp({ now: NOW, timestampMs: now - 7000, sentAtMs: undefined, offsetMs: undefined })).toEqual({ timestamp: new Date(now - 7000), source: 'timestamp', clamped: false });
    expect(resolveTimestamp({ now: NOW, timestampMs: undefined, sentAtMs: now - 1000, offsetMs: undefined })).toEqual({ timestamp: NOW, source: 'now', clamped: false });
    expect(resolveTimestamp({ now: NOW, timestampMs: now + 24 * 3600_000, sentAtMs: undefined, offsetMs: undefined })).toEqual({ timestamp: NOW, source: 'timestamp', clamped: true });
  });
});

describe('the batch envelope', () => {
  it('says what is malformed', () => {
    expect(() => extractBatch(5)).toThrow('Malformed request data: expected an event, an array of events or an object with a "batch" array');
    expect(() => extractBatch({ batch: {} })).toThrow('Malformed request data: "batch" must be an array of events');
  });

  it('trims the key, wherever it comes from', () => {
    expect(extractBatch({ api_key: ' k1 ', event: 'e' }).apiKey).toBe('k1');
    expect(extractBatch([{ event: 'e', properties: { token: ' k2 ' } }]).apiKey).toBe('k2');
  });

  it("posthog-js's `_`: whole epoch ms after 2020, nothing else", () => {
    expect(sentAtFromQuery('1700000000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(sentAtFromQuery(String(Date.UTC(2021, 0, 1)))).toBe('2021-01-01T00:00:00.000Z');
    for (const value of [undefined, '', 'abc', 'x1700000000000', '1700000000000x', '17000000000000000', String(Date.UTC(2020, 11, 31, 23, 59)), '1700000000', '1.7e12', '0x18BCFE56800']) {
      expect(sentAtFromQuery(value), value).toBeUndefined();
    }
  });
});

describe('the logged event', () => {
  it('warnings describe what was sent', () => {
    expect(warned(5)).toEqual({ type: 'invalid_event', details: { reason: 'event is not a JSON object', value: 'number' } });
    expect(warned(null).details).toEqual({ reason: 'event is not a JSON object', value: 'null' });
    expect(warned([]).details).toEqual({ reason: 'event is not a JSON object', value: 'array' });
    expect(warned({ event: 5, distinct_id: 'a' })).toEqual({ type: 'missing_event_name', details: { event: null, eventUuid: null } });
    expect(warned({ event: '', distinct_id: 'a', uuid: 5 }).details).toEqual({ event: '', eventUuid: '5' });
    expect(warned({ event: 'e', distinct_id: 'a', properties: 'x' })).toEqual({ type: 'malformed_event_properties', details: { event: 'e', eventUuid: null, value: 'string' } });
    expect(warned({ event: 'e', distinct_id: 'a', properties: [] }).details).toMatchObject({ value: 'array' });
  });

  it('properties: null is none', () => {
    expect(ok({ event: 'e', distinct_id: 'a', properties: null }).properties).toEqual({ $ip: '203.0.113.9' });
  });

  it('a request context is used as worked out', () => {
    const context = { ...requestContext(ctx()), receivedAt: '2000-01-01T00:00:00.000Z' };
    expect(ok({ event: 'e', distinct_id: 'a' }, context).received_at).toBe('2000-01-01T00:00:00.000Z');
  });

  it('an offset that is not a finite number is ignored', () => {
    const timestamp = '2024-05-01T11:00:00.000Z';
    expect(ok({ event: 'e', distinct_id: 'a', timestamp, offset: Infinity }).timestamp).toBe(timestamp);
    expect(ok({ event: 'e', distinct_id: 'a', timestamp, offset: '5000' }).timestamp).toBe(timestamp);
    expect(ok({ event: 'e', distinct_id: 'a', timestamp, offset: 5000 }).timestamp).toBe('2024-05-01T11:59:55.000Z');
  });

  it('$ip: a non-string is no address; the request address fills a missing one', () => {
    expect(ok({ event: 'e', distinct_id: 'a', properties: { $ip: 5 } }).properties.$ip).toBe('203.0.113.9');
    expect(ok({ event: 'e', distinct_id: 'a', properties: { $ip: '198.51.100.1' } }).properties.$ip).toBe('198.51.100.1');
    const noAddress = ctx({ ip: undefined });
    expect(ok({ event: 'e', distinct_id: 'a', properties: { $ip: 5 } }, noAddress).properties).not.toHaveProperty('$ip');
    expect(ok({ event: 'e', distinct_id: 'a', properties: { $ip: null } }, noAddress).properties).toEqual({ $ip: null });
    expect(ok({ event: 'e', distinct_id: 'a', properties: { $ip: '' } }, noAddress).properties).toEqual({ $ip: '' });
  });

  it("the event's own sent_at wins over the request's, and top-level $set_once only when an object", () => {
    const captured = ok({ event: 'e', distinct_id: 'a', sent_at: '2024-05-01T11:00:00Z', $set_once: 'x' }, ctx({ sentAt: '2024-05-01T10:00:00Z' }));
    expect(captured.sent_at).toBe('2024-05-01T11:00:00.000Z');
    expect(captured).not.toHaveProperty('$set_once');
    expect(ok({ event: 'e', distinct_id: 'a' }, ctx({ sentAt: '2024-05-01T10:00:00Z' })).sent_at).toBe('2024-05-01T10:00:00.000Z');
  });
});
