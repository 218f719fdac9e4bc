import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENVELOPE_FORMAT, envelopes, messageId, parseEnvelope, publishedEvent } from '../../../src/adapters/nats/envelope';
import { RecordTooLargeError, type IngestHandOver } from '../../../src/store/ingest-transport';

const context = { actor: { type: 'project_key' as const, projectId: 4 }, projectId: 4 };
const handOver = (records: IngestHandOver['records']): IngestHandOver => ({ streamId: 'ingest-4', projectId: 4, historical: false, records, context });
const read = (body: Buffer) => parseEnvelope(body, ENVELOPE_FORMAT);
const dataOf = (r: { serialized: string }): unknown => JSON.parse(r.serialized);
const captured = (from: number, n: number, pad = 100) => ({ type: 'EventsCaptured', data: { events: Array.from({ length: n }, (_, i) => ({ uuid: `u${from + i}`, event: 'e', pad: 'x'.repeat(pad) })) } });

describe('NATS envelopes: a hand-over as messages under the max payload', () => {
  it('keeps a small hand-over in one message that reads back as sent', () => {
    const h = handOver([captured(0, 3), { type: 'IngestionWarningRaised', data: { type: 'w', source: 'capture', details: {} } }]);
    const bodies = envelopes(h, 1024 * 1024);
    expect(bodies).toHaveLength(1);
    const e = read(bodies[0]);
    expect(e).toEqual({ stream: 'ingest-4', projectId: 4, context, records: h.records.map((r) => ({ type: r.type, serialized: JSON.stringify(r.data) })) });
  });

  it('carries prepared texts byte for byte, with their schema versions and event ids, whatever their characters', () => {
    // Lengths are UTF-8 bytes: a text of multi-byte characters read by character counts would be cut wrong.
    const texts = ['{"events":[{"uuid":"a","event":"é ☃ 𝄞"}]}', '{"type":"w","source":"capture","details":{"note":"ünïcødé"}}', '{"events":[]}'];
    const records = [
      { type: 'EventsCaptured', data: null, serialized: texts[0], schemaVersion: 3 },
      { type: 'IngestionWarningRaised', data: null, serialized: texts[1], eventId: 'w-1' },
      { type: 'EventsCaptured', data: null, serialized: texts[2] },
    ];
    expect(read(envelopes(handOver(records), 1024 * 1024)[0]).records).toEqual([
      { type: 'EventsCaptured', serialized: texts[0], schemaVersion: 3 },
      { type: 'IngestionWarningRaised', serialized: texts[1], eventId: 'w-1' },
      { type: 'EventsCaptured', serialized: texts[2] },
    ]);
  });

  it("reads a message of format 1 (one JSON document, published by earlier versions) as its records' texts", () => {
    const records = [{ type: 'EventsCaptured', schemaVersion: 2, data: { events: [{ uuid: 'a', event: 'é' }] } }];
    const body = Buffer.from(JSON.stringify({ stream: 'ingest-4', projectId: 4, context, records }));
    expect(parseEnvelope(body)).toEqual({ stream: 'ingest-4', projectId: 4, context, records: [{ type: 'EventsCaptured', schemaVersion: 2, serialized: JSON.stringify(records[0].data) }] });
    expect(parseEnvelope(body, '')).toEqual(parseEnvelope(body));
  });

  it('refuses a body that is not an envelope of its format', () => {
    const [body] = envelopes(handOver([captured(0, 3)]), 1024 * 1024);
    expect(() => read(body.subarray(0, body.length - 1))).toThrow(/not an ingestion envelope/);
    expect(() => read(Buffer.concat([body, Buffer.from('x')]))).toThrow(/not an ingestion envelope/);
    expect(() => parseEnvelope(body, '3')).toThrow(/format 3/);
    expect(() => parseEnvelope(body)).toThrow();
  });

  it('cuts between records and inside an EventsCaptured record, every message under the limit, order kept', () => {
    const max = 64 * 1024;
    const bodies = envelopes(handOver([captured(0, 400, 200), captured(400, 50, 200), captured(450, 400, 200)]), max);
    expect(bodies.length).toBeGreaterThan(3);
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(max);
    const uuids = bodies.flatMap((b) => read(b).records.flatMap((r) => (dataOf(r) as { events: { uuid: string }[] }).events.map((e) => e.uuid)));
    expect(uuids).toEqual(Array.from({ length: 850 }, (_, i) => `u${i}`));
  });

  it('replaces an event too large for any message by a message_size_too_large warning where it stood; refuses an uncuttable record', () => {
    const max = 64 * 1024;
    const record = { type: 'EventsCaptured', data: { events: [{ uuid: 'a', event: 'e' }, { uuid: 'big', event: 'huge', pad: 'x'.repeat(max) }, { uuid: 'c', event: 'e' }] } };
    const records = envelopes(handOver([record]), max).flatMap((b) => read(b).records);
    expect(records.map((r) => r.type)).toEqual(['EventsCaptured', 'IngestionWarningRaised', 'EventsCaptured']);
    expect(dataOf(records[1])).toMatchObject({ type: 'message_size_too_large', details: { event: 'huge', eventUuid: 'big' } });
    expect(() => envelopes(handOver([{ type: 'RecordingSnapshotsCaptured', data: { pad: 'x'.repeat(max) } }]), max)).toThrow(RecordTooLargeError);
  });

  it('derives the message id from subject and content: the SHA-256 digest of subject, newline, body', async () => {
    const [body] = envelopes(handOver([captured(0, 2)]), 1024 * 1024);
    expect(await messageId('s.live.4', body)).toBe(createHash('sha256').update('s.live.4\n').update(body).digest('base64url'));
    expect(await messageId('s.live.4', body)).toBe(await messageId('s.live.4', Buffer.from(body)));
    expect(await messageId('s.live.4', body)).not.toBe(await messageId('s.live.5', body));
    expect(await messageId('s.live.4', body)).not.toBe(await messageId('s.live.4', envelopes(handOver([captured(1, 2)]), 1024 * 1024)[0]));
  });

  it('hands the log a published record with its text as it is, and its data parsed from that text when read', () => {
    const text = '{"events":[{"uuid":"a","event":"é","properties":{"n":1}}]}';
    const event = publishedEvent({ type: 'EventsCaptured', schemaVersion: 2, eventId: 'x', serialized: text });
    expect(event).toMatchObject({ type: 'EventsCaptured', schemaVersion: 2, eventId: 'x', serialized: text });
    expect(event.data).toEqual(JSON.parse(text));
    // Parsed once: a log that reads data several times (KurrentDB's client) gets the same value.
    expect(event.data).toBe(event.data);
  });
});
