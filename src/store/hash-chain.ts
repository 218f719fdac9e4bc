import { createHash, hash } from 'node:crypto';

/**
 * The log's hash chain, the same on every adapter (docs/auditing.md is the reference an auditor
 * recomputes it from). A record's hash is the SHA-256, in lowercase hex, of the UTF-8 text
 *
 *   JSON.stringify([prev, streamId, revision, type, schemaVersion, data, eventId, recordedAt,
 *                   projectId, actor, causationId, correlationId])
 *
 * where `prev` is the previous record's hash ("" for the first chained record: a new log's first
 * record, or an existing log's first record after the upgrade). The engine's position is left out:
 * it differs by adapter, and one history must have one head hash everywhere.
 *
 * Adapters store `data` as JSON text and never re-serialise it to hash it: the text stored is what
 * JSON.stringify gives for the data read back, so splicing the stored text in place of `data`
 * yields the same bytes (see `canonicalText`).
 */

/** The chain's start: the `prev` of the first chained record. */
export const CHAIN_START = '';

/** What the chain covers of a record, with `data` and `actor` as their JSON texts. */
export interface ChainedContent {
  streamId: string;
  revision: number;
  type: string;
  schemaVersion: number;
  /** JSON text of the event's data (as stored). */
  dataText: string;
  eventId: string;
  recordedAt: string;
  projectId: number | null;
  /** JSON text of the actor (as stored). */
  actorText: string;
  causationId: string | null;
  correlationId: string | null;
}

/**
 * The part of the canonical text between the revision and the data: known before an append's
 * critical section, so a server-side append (PostgreSQL) only splices texts.
 */
export function headText(type: string, schemaVersion: number): string {
  return `${JSON.stringify(type)},${schemaVersion}`;
}

/** The part after the data. */
export function tailText(c: Pick<ChainedContent, 'eventId' | 'recordedAt' | 'projectId' | 'actorText' | 'causationId' | 'correlationId'>): string {
  return `${JSON.stringify(c.eventId)},${JSON.stringify(c.recordedAt)},${c.projectId ?? 'null'},${c.actorText},${JSON.stringify(c.causationId)},${JSON.stringify(c.correlationId)}`;
}

/** The canonical text of a record after `prev`: what the record's hash is the SHA-256 of. */
export function canonicalText(prev: string, c: ChainedContent): string {
  return `[${JSON.stringify(prev)},${JSON.stringify(c.streamId)},${c.revision},${headText(c.type, c.schemaVersion)},${c.dataText},${tailText(c)}]`;
}

/** What the records of one append share: encoded once per append, not per record. */
export type SharedContent = Pick<ChainedContent, 'streamId' | 'recordedAt' | 'projectId' | 'actorText' | 'causationId' | 'correlationId'>;

/**
 * Hashes the records of one append in order, starting after `prev` (read inside the append's
 * critical section): the same text as canonicalText, with the parts the records share built once.
 */
export function appendChain(
  prev: string,
  shared: SharedContent,
): (revision: number, type: string, schemaVersion: number, data: string | Uint8Array, eventId: string) => string {
  const stream = JSON.stringify(shared.streamId);
  const rest = tailText({ ...shared, eventId: '' }).slice(2);
  // The text is built in one template: per record, JSON.stringify calls and a string of parts to
  // flatten cost more than the hash itself. A hex hash, and an id of letters, digits and dashes (a
  // UUID), are their own JSON strings once quoted; anything else is encoded as before.
  let quotedLast = JSON.stringify(prev);
  let head = '';
  let headOf: { type: string; schemaVersion: number } | null = null;
  return (revision, type, schemaVersion, data, eventId) => {
    if (!headOf || headOf.type !== type || headOf.schemaVersion !== schemaVersion) {
      head = headText(type, schemaVersion);
      headOf = { type, schemaVersion };
    }
    const id = PLAIN_ID.test(eventId) ? `"${eventId}"` : JSON.stringify(eventId);
    // Data already encoded (a large record the caller stores as these bytes) is hashed as it is,
    // not spliced into one more string to encode again.
    const last =
      typeof data === 'string'
        ? sha256Hex(`[${quotedLast},${stream},${revision},${head},${data},${id}${rest}]`)
        : createHash('sha256').update(`[${quotedLast},${stream},${revision},${head},`).update(data).update(`,${id}${rest}]`).digest('hex');
    quotedLast = `"${last}"`;
    return last;
  };
}

const PLAIN_ID = /^[0-9A-Za-z-]*$/;

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** A record's chained content with its data as stored: the JSON text, or the UTF-8 bytes of that text. */
export type StoredContent = Omit<ChainedContent, 'dataText'> & { data: string | Buffer };

/** chainHash of stored content; bytes are hashed as they are (the text's encoding), not decoded first. */
export function storedChainHash(prev: string, c: StoredContent): string {
  if (typeof c.data === 'string') return chainHash(prev, { ...c, dataText: c.data });
  return createHash('sha256')
    .update(`[${JSON.stringify(prev)},${JSON.stringify(c.streamId)},${c.revision},${headText(c.type, c.schemaVersion)},`)
    .update(c.data)
    .update(`,${tailText(c)}]`)
    .digest('hex');
}

/** The hash of a record whose predecessor's hash is `prev`. */
export function chainHash(prev: string, c: ChainedContent): string {
  return sha256Hex(canonicalText(prev, c));
}

/** The chain's content of a record as read back (data and actor as values): how a reader without the stored texts recomputes it. */
export function contentOf(record: {
  streamId: string;
  revision: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: { eventId: string; recordedAt: string; projectId: number | null; actor: unknown; causationId: string | null; correlationId: string | null };
}): ChainedContent {
  const m = record.metadata;
  return {
    streamId: record.streamId,
    revision: record.revision,
    type: record.type,
    schemaVersion: record.schemaVersion,
    dataText: JSON.stringify(record.data),
    eventId: m.eventId,
    recordedAt: m.recordedAt,
    projectId: m.projectId,
    actorText: JSON.stringify(m.actor),
    causationId: m.causationId,
    correlationId: m.correlationId,
  };
}

/** Where the chain ends: the last chained record (null hash when no record is chained yet). */
export interface ChainHead {
  /** Position of the log's last record; 0 when the log is empty. */
  position: number;
  /** That record's hash; null when it precedes the chain (an upgraded log before its first append). */
  hash: string | null;
}
