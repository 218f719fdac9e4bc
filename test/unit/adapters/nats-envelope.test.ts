import { describe, expect, it } from 'vitest';
import { envelopes, messageId, parseEnvelope } from '../../../src/adapters/nats/envelope';
import { RecordTooLargeError, type IngestHandOver } from '../../../src/store/ingest-transport';

const context = { actor: { type: 'project_key' as const, projectId: 4 }, projectId: 4 };
const handOver = (records: IngestHandOver['records']): IngestHandOver => ({ streamId: 'ingest-4', projectId: 4, historical: false, records, context });
const captured = (from: number, n: number, pad = 100) => ({ type: 'EventsCaptured', data: { events: Array.from({ length: n }, (_, i) => ({ uuid: `u${from + i}`, event: 'e', pad: 'x'.repeat(pad) })) } });

describe('NATS envelopes: a hand-over as messages under the max payload', () => {
  it('keeps a small hand-over in one message that reads back as sent', () => {
    const h = handOver([captured(0, 3), { type: 'IngestionWarningRaised', data: { type: 'w', source: 'capture', details: {} } }]);
    const bodies = envelopes(h, 1024 * 1024);
    expect(bodies).toHaveLength(1);
    const e = parseEnvelope(bodies[0]);
    expect(e).toEqual({ stream: 'ingest-4', projectId: 4, context, records: h.records.map((r) => ({ type: r.type, data: r.data })) });
  });

  it('cuts between records and inside an EventsCaptured record, every message under the limit, order kept', () => {
    const max = 64 * 1024;
    const bodies = envelopes(handOver([captured(0, 400, 200), captured(400, 50, 200), captured(450, 400, 200)]), max);
    expect(bodies.length).toBeGreaterThan(3);
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(max);
    const uuids = bodies.flatMap((b) => parseEnvelope(b).records.flatMap((r) => (r.data as { events: { uuid: string }[] }).events.map((e) => e.uuid)));
    expect(uuids).toEqual(Array.from({ length: 850 }, (_, i) => `u${i}`));
  });

  it('replaces an event too large for any message by a message_size_too_large warning where it stood; refuses an uncuttable record', () => {
    const max = 64 * 1024;
    const record = { type: 'EventsCaptured', data: { events: [{ uuid: 'a', event: 'e' }, { uuid: 'big', event: 'huge', pad: 'x'.repeat(max) }, { uuid: 'c', event: 'e' }] } };
    const records = envelopes(handOver([record]), max).flatMap((b) => parseEnvelope(b).records);
    expect(records.map((r) => r.type)).toEqual(['EventsCaptured', 'IngestionWarningRaised', 'EventsCaptured']);
    expect(records[1].data).toMatchObject({ type: 'message_size_too_large', details: { event: 'huge', eventUuid: 'big' } });
    expect(() => envelopes(handOver([{ type: 'RecordingSnapshotsCaptured', data: { pad: 'x'.repeat(max) } }]), max)).toThrow(RecordTooLargeError);
  });

  it('derives the message id from subject and content', () => {
    const [body] = envelopes(handOver([captured(0, 2)]), 1024 * 1024);
    expect(messageId('s.live.4', body)).toBe(messageId('s.live.4', Buffer.from(body)));
    expect(messageId('s.live.4', body)).not.toBe(messageId('s.live.5', body));
    expect(messageId('s.live.4', body)).not.toBe(messageId('s.live.4', envelopes(handOver([captured(1, 2)]), 1024 * 1024)[0]));
  });
});
