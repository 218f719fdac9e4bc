import { createHash } from 'node:crypto';
import type { AppendContext } from '../../store/event-log';
import { RecordTooLargeError, type IngestHandOver } from '../../store/ingest-transport';
import type { NewEvent } from '../../../streams';

/**
 * One JetStream message of a hand-over: the log stream, the append context and some of the
 * request's records in order. A request whose records pass the server's max payload becomes
 * several messages, cut between records, or inside an EventsCaptured record between its events.
 */
export interface Envelope {
  stream: string;
  projectId: number;
  context: AppendContext;
  records: { type: string; schemaVersion?: number; eventId?: string; data: unknown }[];
}

/** Room kept in a message for the envelope around its records and the message's headers. */
const ENVELOPE_ROOM = 4096;

const recordText = (r: NewEvent): string => {
  const head = `{"type":${JSON.stringify(r.type)}${r.schemaVersion !== undefined ? `,"schemaVersion":${r.schemaVersion}` : ''}${r.eventId !== undefined ? `,"eventId":${JSON.stringify(r.eventId)}` : ''},"data":`;
  return `${head}${r.serialized ?? JSON.stringify(r.data)}}`;
};

/**
 * The messages' bodies, in order, each at most `maxPayload` bytes. An event too large for a message
 * of its own is replaced by the ingestion warning PostHog raises for a message past its broker's
 * limit (`message_size_too_large`), where it stood.
 */
export function envelopes(h: IngestHandOver, maxPayload: number): Buffer[] {
  const limit = maxPayload - ENVELOPE_ROOM;
  const head = `{"stream":${JSON.stringify(h.streamId)},"projectId":${h.projectId},"context":${JSON.stringify(h.context)},"records":[`;
  const out: Buffer[] = [];
  let texts: string[] = [];
  let bytes = 0;
  const close = () => {
    if (texts.length === 0) return;
    out.push(Buffer.from(`${head}${texts.join(',')}]}`));
    texts = [];
    bytes = 0;
  };
  const add = (text: string) => {
    const size = Buffer.byteLength(text);
    if (bytes + size + 1 > limit) close();
    texts.push(text);
    bytes += size + 1;
  };
  for (const record of h.records) {
    const text = recordText(record);
    if (Buffer.byteLength(text) <= limit) add(text);
    else for (const part of cut(record, limit)) add(part);
  }
  close();
  return out;
}

/** An oversized record as several that fit, in order. */
function cut(record: NewEvent, limit: number): string[] {
  const events = (record.data as { events?: unknown } | null)?.events;
  if (record.type !== 'EventsCaptured' || !Array.isArray(events)) {
    throw new RecordTooLargeError(`a ${record.type} record of ${Buffer.byteLength(recordText(record))} bytes does not fit the transport's messages (max payload ${limit + ENVELOPE_ROOM} bytes)`);
  }
  const parts: string[] = [];
  let group: string[] = [];
  let bytes = 0;
  const closeGroup = () => {
    if (group.length) parts.push(`{"type":"EventsCaptured","data":{"events":[${group.join(',')}]}}`);
    group = [];
    bytes = 0;
  };
  for (const event of events) {
    const text = JSON.stringify(event);
    const size = Buffer.byteLength(text);
    if (size + 64 > limit) {
      closeGroup();
      const e = event as { event?: unknown; uuid?: unknown };
      const details = { event: typeof e.event === 'string' ? e.event : null, eventUuid: typeof e.uuid === 'string' ? e.uuid : null, chars: text.length };
      parts.push(recordText({ type: 'IngestionWarningRaised', data: { type: 'message_size_too_large', source: 'capture', details } }));
      continue;
    }
    if (bytes + size + 64 > limit) closeGroup();
    group.push(text);
    bytes += size + 1;
  }
  closeGroup();
  return parts;
}

/** The message id JetStream deduplicates on, and the consumer's idempotency key: a digest of the subject and body. */
export function messageId(subject: string, body: Buffer): string {
  return createHash('sha256').update(subject).update('\n').update(body).digest('base64url');
}

export function parseEnvelope(body: Uint8Array): Envelope {
  const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as Envelope;
  if (typeof parsed.stream !== 'string' || !Array.isArray(parsed.records) || typeof parsed.context !== 'object') throw new Error('not an ingestion envelope');
  return parsed;
}
