import { describe, expect, it } from 'vitest';

import { extractBatch, IngestError, invalidApiKey, missingApiKey, sentAtFromQuery } from '../../../src/ingest';
import { event } from './helpers';

describe('extractBatch: shapes', () => {
  it('reads a /batch body (posthog-node)', () => {
    const events = [event(), event({ event: 'b' })];
    expect(
      extractBatch({ api_key: 'phc_a', batch: events, sent_at: '2024-05-01T12:00:00Z', historical_migration: true }),
    ).toEqual({ apiKey: 'phc_a', events, historicalMigration: true, sentAt: '2024-05-01T12:00:00Z' });
  });

  it('reads a single event', () => {
    const single = event({ api_key: 'phc_a' });
    expect(extractBatch(single)).toEqual({ apiKey: 'phc_a', events: [single], historicalMigration: false, sentAt: undefined });
  });

  it('reads an array of events (posthog-js)', () => {
    const events = [event({ properties: { token: 'phc_js' } }), event()];
    expect(extractBatch(events)).toMatchObject({ apiKey: 'phc_js', events, historicalMigration: false });
  });

  it('reads { data: [...] }', () => {
    const events = [event()];
    expect(extractBatch({ token: 'phc_a', data: events }).events).toEqual(events);
  });

  it('keeps an event whose property is named data as one event', () => {
    const single = { event: 'e', data: ['x'], token: 'phc_a' };
    expect(extractBatch(single).events).toEqual([single]);
  });

  it('returns no events for an empty batch', () => {
    expect(extractBatch({ api_key: 'k', batch: [] }).events).toEqual([]);
  });

  it('only a literal true marks historical migration', () => {
    expect(extractBatch({ api_key: 'k', batch: [], historical_migration: 'true' }).historicalMigration).toBe(false);
    expect(extractBatch([{ historical_migration: true }]).historicalMigration).toBe(false);
  });

  it.each([null, 42, 'text', true])('rejects the payload %j as malformed', (payload) => {
    expect(() => extractBatch(payload)).toThrow(IngestError);
    try {
      extractBatch(payload);
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 'invalid_payload' });
    }
  });

  it('rejects a batch that is not an array', () => {
    expect(() => extractBatch({ api_key: 'k', batch: { event: 'e' } })).toThrow(/Malformed request data/);
  });
});

describe('extractBatch: api key lookup order', () => {
  const props = { properties: { token: 'from_properties' } };
  it.each([
    [{ api_key: 'a', token: 't', $token: 's', ...props }, 'a'],
    [{ token: 't', $token: 's', ...props }, 't'],
    [{ $token: 's', ...props }, 's'],
    [{ ...props }, 'from_properties'],
    [{ api_key: '', token: '  ', $token: 's' }, 's'],
    [{ api_key: 42, token: 't' }, 't'],
    [{ event: 'e' }, undefined],
  ])('single event %j -> %s', (payload, expected) => {
    expect(extractBatch({ event: 'e', ...payload }).apiKey).toBe(expected);
  });

  it('prefers the batch envelope, then the first event, then its properties.token', () => {
    expect(extractBatch({ api_key: 'env', batch: [{ token: 'ev', ...props }] }).apiKey).toBe('env');
    expect(extractBatch({ batch: [{ token: 'ev', ...props }] }).apiKey).toBe('ev');
    expect(extractBatch({ batch: [{ ...props }, { token: 'second' }] }).apiKey).toBe('from_properties');
    expect(extractBatch([{ event: 'e' }, { token: 'second' }]).apiKey).toBeUndefined();
  });

  it('exports the 401 errors the caller maps a missing or unknown key to', () => {
    expect(missingApiKey()).toMatchObject({ status: 401, type: 'authentication_error', code: 'missing_api_key', attr: null });
    expect(invalidApiKey().toBody()).toEqual({
      type: 'authentication_error',
      code: 'invalid_api_key',
      detail: expect.any(String),
      attr: null,
    });
  });
});

describe('extractBatch: sent_at', () => {
  it("falls back to posthog-js's `_` query parameter (epoch ms)", () => {
    expect(extractBatch([event()], { _: '1714564800000' }).sentAt).toBe('2024-05-01T12:00:00.000Z');
  });

  it('prefers the body sent_at', () => {
    expect(extractBatch({ api_key: 'k', batch: [], sent_at: '2024-01-01T00:00:00Z' }, { _: '1714564800000' }).sentAt).toBe(
      '2024-01-01T00:00:00Z',
    );
  });

  it.each(['1714564800', 'abc', '', '-5', '99999999999999999'])('ignores `_=%s`', (value) => {
    expect(sentAtFromQuery(value)).toBeUndefined();
  });
});
