import { PostHog } from 'posthog-node';
import { describe, expect, it } from 'vitest';

import { clientIp, decodeBody, extractBatch, normalizeEvent } from '../../../src/ingest';
import { CapturedEventSchema } from '../../support/captured-event-schema';
import { MB, NOW } from './helpers';

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

async function bodyBytes(body: unknown): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Blob) return Buffer.from(await body.arrayBuffer());
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new Error('unexpected body type');
}

/** The real SDK, its requests caught by a fetch stand-in: no network. */
async function sendWithSdk(options: { historicalMigration?: boolean } = {}): Promise<Sent[]> {
  const sent: Sent[] = [];
  const client = new PostHog('phc_project_key', {
    host: 'http://ingest.invalid',
    flushAt: 100,
    flushInterval: 0,
    historicalMigration: options.historicalMigration,
    fetch: async (url, init) => {
      sent.push({ url, headers: init.headers, body: await bodyBytes(init.body) });
      return { status: 200, text: async () => '{"status":1}', json: async () => ({ status: 1 }) };
    },
  });
  client.capture({ distinctId: 'user-1', event: 'signed up', properties: { plan: 'pro' } });
  client.capture({ distinctId: 'user-1', event: 'dated', timestamp: new Date('2024-04-30T10:00:00Z') });
  client.identify({ distinctId: 'user-1', properties: { email: 'a@example.com' } });
  await client.shutdown();
  return sent.filter((s) => s.url.includes('/batch'));
}

describe('posthog-node 5 requests', () => {
  it('decode, extract and normalise end to end', async () => {
    const [request] = await sendWithSdk();
    expect(request.headers['Content-Encoding']).toBe('gzip');

    const payload = decodeBody({
      body: request.body,
      contentType: request.headers['Content-Type'],
      contentEncoding: request.headers['Content-Encoding'],
      query: {},
      maxDecompressedBytes: 20 * MB,
    });
    const batch = extractBatch(payload);
    expect(batch.apiKey).toBe('phc_project_key');
    expect(batch.historicalMigration).toBe(false);
    expect(batch.sentAt).toEqual(expect.any(String));

    const ip = clientIp({ 'x-forwarded-for': '203.0.113.9:443' }, '127.0.0.1');
    const results = batch.events.map((raw) =>
      normalizeEvent(raw, { now: NOW, ip, sentAt: batch.sentAt, historicalMigration: false, newUuid: () => 'unused' }),
    );
    const events = results.map((r) => {
      if (!r.ok) throw new Error(r.warning.type);
      return CapturedEventSchema.parse(r.event);
    });

    expect(events.map((e) => e.event)).toEqual(['signed up', 'dated', '$identify']);
    for (const e of events) {
      expect(e.distinct_id).toBe('user-1');
      expect(e.properties).toMatchObject({ $lib: 'posthog-node', $geoip_disable: true, $ip: '203.0.113.9' });
    }
    expect(events[0].properties.plan).toBe('pro');
    expect(events[2].properties.$set).toMatchObject({ email: 'a@example.com' });
    // The SDK's clock and ours differ: an event lands its age (send time - event time) before NOW.
    const age = NOW.getTime() - Date.parse(events[0].timestamp);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(5_000);
    expect(events[1].timestamp).not.toBe('2024-04-30T10:00:00.000Z');
    expect(new Set(events.map((e) => e.uuid)).size).toBe(3);
  });

  it('carries historical_migration', async () => {
    const [request] = await sendWithSdk({ historicalMigration: true });
    const batch = extractBatch(
      decodeBody({ body: request.body, contentEncoding: 'gzip', query: {}, maxDecompressedBytes: 20 * MB }),
    );
    expect(batch.historicalMigration).toBe(true);
  });
});
