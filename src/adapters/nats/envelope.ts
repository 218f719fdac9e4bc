import { webcrypto } from 'node:crypto';
import type { AppendContext } from '../../store/event-log';
import { RecordTooLargeError, type IngestHandOver } from '../../store/ingest-transport';
import type { NewEvent } from '../../../streams';

/**
 * The NATS header naming a message's body format. Absent: format 1, one JSON document whose
 * records hold their data as JSON values (what earlier versions published; a backlog of them may
 * still wait in the stream). `2`: a JSON head line, then the records' data texts back to back, their
 * lengths in the head, so the ingest role takes each record's text as it is instead of parsing the
 * body and serialising every record again.
 */
export const ENVELOPE_FORMAT_HEADER = 'Eventful-Envelope';
export const ENVELOPE_FORMAT = '2';

/** What a record of a message says besides its data: its data's length in UTF-8 bytes. */
interface RecordHead {
  type: string;
  schemaVersion?: number;
  eventId?: string;
  bytes: number;
}

/** A record read back from a message: its data as the JSON text capture validated. */
export interface PublishedRecord {
  type: string;
  schemaVersion?: number;
  eventId?: string;
  serialized: string;
}

/**
 * One JetStream message of a hand-over: the log stream, the append context and some of the
 * request's records in order. A request whose records pass the server's max payload becomes
 * several messages, cut between records, or inside an EventsCaptured record between its events.
 */
export interface Envelope {
  stream: string;
  projectId: number;
  context: AppendContext;
  records: PublishedRecord[];
}

/** Room kept in a message for the head's stream, context and the message's headers. */
const ENVELOPE_ROOM = 4096;

/** A record's data as text with its head, ready to be placed in a message. */
interface Piece {
  head: RecordHead;
  text: string;
  /** The head's own share of the head line (its JSON and a comma). */
  headBytes: number;
}

const piece = (type: string, text: string, schemaVersion?: number, eventId?: string): Piece => {
  const head: RecordHead = { type, bytes: Buffer.byteLength(text) };
  if (schemaVersion !== undefined) head.schemaVersion = schemaVersion;
  if (eventId !== undefined) head.eventId = eventId;
  return { head, text, headBytes: Buffer.byteLength(JSON.stringify(head)) + 1 };
};

/**
 * The messages' bodies, in order, each at most `maxPayload` bytes (format 2). An event too large
 * for a message of its own is replaced by the ingestion warning PostHog raises for a message past
 * its broker's limit (`message_size_too_large`), where it stood.
 */
export function envelopes(h: IngestHandOver, maxPayload: number): Buffer[] {
  const limit = maxPayload - ENVELOPE_ROOM;
  const out: Buffer[] = [];
  let group: Piece[] = [];
  let bytes = 0;
  const close = () => {
    if (group.length === 0) return;
    out.push(body(h, group));
    group = [];
    bytes = 0;
  };
  const add = (p: Piece) => {
    const size = p.head.bytes + p.headBytes;
    if (bytes + size > limit) close();
    group.push(p);
    bytes += size;
  };
  for (const record of h.records) {
    const p = piece(record.type, record.serialized ?? JSON.stringify(record.data), record.schemaVersion, record.eventId);
    if (p.head.bytes + p.headBytes <= limit) add(p);
    else for (const part of cut(record, p.head.bytes, limit)) add(part);
  }
  close();
  return out;
}

/** The head line, then every record's text: written once into a buffer of the body's size. */
function body(h: IngestHandOver, group: Piece[]): Buffer {
  const headLine = `${JSON.stringify({ stream: h.streamId, projectId: h.projectId, context: h.context, records: group.map((p) => p.head) })}\n`;
  const headBytes = Buffer.byteLength(headLine);
  let size = headBytes;
  for (const p of group) size += p.head.bytes;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(headLine, 0, 'utf8');
  for (const p of group) at += out.write(p.text, at, 'utf8');
  // The texts' lengths were measured before: a body shorter than announced would be read wrong.
  if (at !== size) throw new Error(`an envelope was written with ${at} of its ${size} bytes`);
  return out;
}

/** An oversized record as several that fit, in order. */
function cut(record: NewEvent, bytes: number, limit: number): Piece[] {
  const events = (record.data as { events?: unknown } | null)?.events;
  if (record.type !== 'EventsCaptured' || !Array.isArray(events)) {
    throw new RecordTooLargeError(`a ${record.type} record of ${bytes} bytes does not fit the transport's messages (max payload ${limit + ENVELOPE_ROOM} bytes)`);
  }
  const parts: Piece[] = [];
  let group: string[] = [];
  let size = 0;
  const closeGroup = () => {
    if (group.length) parts.push(piece('EventsCaptured', `{"events":[${group.join(',')}]}`, record.schemaVersion));
    group = [];
    size = 0;
  };
  for (const event of events) {
    const text = JSON.stringify(event);
    const eventBytes = Buffer.byteLength(text);
    if (eventBytes + 128 > limit) {
      closeGroup();
      const e = event as { event?: unknown; uuid?: unknown };
      const details = { event: typeof e.event === 'string' ? e.event : null, eventUuid: typeof e.uuid === 'string' ? e.uuid : null, chars: text.length };
      parts.push(piece('IngestionWarningRaised', JSON.stringify({ type: 'message_size_too_large', source: 'capture', details })));
      continue;
    }
    if (size + eventBytes + 128 > limit) closeGroup();
    group.push(text);
    size += eventBytes + 1;
  }
  closeGroup();
  return parts;
}

/**
 * The message id JetStream deduplicates on, and the consumer's idempotency key: a SHA-256 digest of
 * the subject, a newline and the body. Web Crypto digests on libuv's thread pool: the hash of a
 * large body does not hold capture's event loop.
 */
export async function messageId(subject: string, body: Buffer): Promise<string> {
  const prefix = Buffer.from(`${subject}\n`);
  const input = Buffer.allocUnsafe(prefix.length + body.length);
  prefix.copy(input, 0);
  body.copy(input, prefix.length);
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', input)).toString('base64url');
}

/**
 * A published record as the log takes it. Validated against the event contracts before capture
 * published it (validatedTransport), stamped with its schema version there: its text goes to the
 * log as it is, not through the contracts a second time. The SQLite and PostgreSQL logs store that
 * text and never read `data`; it is parsed only for a log whose client serialises data itself
 * (KurrentDB), once, when first read.
 */
export function publishedEvent(r: PublishedRecord): NewEvent {
  let data: unknown;
  let parsed = false;
  return {
    type: r.type,
    schemaVersion: r.schemaVersion,
    eventId: r.eventId,
    serialized: r.serialized,
    get data() {
      if (!parsed) {
        data = JSON.parse(r.serialized);
        parsed = true;
      }
      return data;
    },
  };
}

const NEWLINE = 0x0a;

/** A message's records read back; `format` is its ENVELOPE_FORMAT_HEADER (absent: format 1). */
export function parseEnvelope(body: Uint8Array, format?: string): Envelope {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (format === undefined || format === '') return parseFormat1(bytes);
  if (format !== ENVELOPE_FORMAT) throw new Error(`ingestion envelope format ${format} is unknown to this version`);
  const end = bytes.indexOf(NEWLINE);
  if (end < 0) throw new Error('not an ingestion envelope: no head line');
  const head = JSON.parse(bytes.toString('utf8', 0, end)) as { stream: unknown; projectId: number; context: unknown; records: unknown };
  if (typeof head.stream !== 'string' || !Array.isArray(head.records) || typeof head.context !== 'object' || head.context === null) throw new Error('not an ingestion envelope');
  const records: PublishedRecord[] = [];
  let at = end + 1;
  for (const r of head.records as RecordHead[]) {
    if (typeof r.type !== 'string' || !Number.isInteger(r.bytes) || r.bytes < 0 || at + r.bytes > bytes.length) throw new Error('not an ingestion envelope: a record overruns the body');
    const record: PublishedRecord = { type: r.type, serialized: bytes.toString('utf8', at, at + r.bytes) };
    if (r.schemaVersion !== undefined) record.schemaVersion = r.schemaVersion;
    if (r.eventId !== undefined) record.eventId = r.eventId;
    records.push(record);
    at += r.bytes;
  }
  if (at !== bytes.length) throw new Error('not an ingestion envelope: bytes left after its records');
  return { stream: head.stream, projectId: head.projectId, context: head.context as AppendContext, records };
}

/** Format 1: one JSON document, each record's data a JSON value (serialised again here). */
function parseFormat1(bytes: Buffer): Envelope {
  const parsed = JSON.parse(bytes.toString('utf8')) as { stream: unknown; projectId: number; context: unknown; records: unknown };
  if (typeof parsed.stream !== 'string' || !Array.isArray(parsed.records) || typeof parsed.context !== 'object' || parsed.context === null) throw new Error('not an ingestion envelope');
  const records = (parsed.records as { type: string; schemaVersion?: number; eventId?: string; data: unknown }[]).map((r) => {
    const record: PublishedRecord = { type: r.type, serialized: JSON.stringify(r.data) };
    if (r.schemaVersion !== undefined) record.schemaVersion = r.schemaVersion;
    if (r.eventId !== undefined) record.eventId = r.eventId;
    return record;
  });
  return { stream: parsed.stream, projectId: parsed.projectId, context: parsed.context as AppendContext, records };
}
