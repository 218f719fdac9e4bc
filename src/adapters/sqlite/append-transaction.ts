import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../../../streams';
import { checkExpectedRevision, checkIdempotencyKey, type AppendOptions, type AppendResult } from '../../store/event-log';
import { appendChain, CHAIN_START } from '../../store/hash-chain';
import type { SqliteDatabase } from './open';

export const COLUMNS =
  'position, stream_id, revision, type, schema_version, data, event_id, recorded_at, project_id, actor, causation_id, correlation_id, hash';

/**
 * Past this many characters, a record's data is encoded to UTF-8 once (Node's encoder), for both the
 * chain and the insert: binding the bytes was also faster than binding the string.
 */
const ENCODE_ONCE_CHARS = 16 * 1024;

/** Idempotency keys of keyed appends, with each one's result (written in the append's transaction). */
const APPEND_KEYS_SCHEMA = `
CREATE TABLE IF NOT EXISTS append_keys (
  key TEXT PRIMARY KEY,
  stream_id TEXT NOT NULL,
  next_expected_revision INTEGER NOT NULL,
  first_position INTEGER NOT NULL,
  last_position INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** What an append stores of an event: `serialized` when the caller prepared it, else `data` as JSON. */
export type AppendRow = Pick<NewEvent, 'type' | 'data' | 'eventId' | 'schemaVersion' | 'serialized'>;

export type AppendTransaction = (streamId: string, events: readonly AppendRow[], options: AppendOptions, recordedAt: string) => AppendResult;

/**
 * The append as one SQLite transaction, shared by the log's own connection and the writer thread
 * (append-thread.ts) so that both check, number and chain exactly alike. Run it with `.immediate`:
 * taking the write lock before reading the revision and the last record's hash means two writers
 * cannot both pass the check, nor both chain onto the same predecessor.
 * `chain: false` stores no hashes: only for measuring what the chain costs (test/bench/log.ts).
 */
export function appendTransaction(db: SqliteDatabase, options: { chain?: boolean } = {}) {
  const chained = options.chain ?? true;
  const lastRevision = db.prepare<[string], { revision: number }>('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1');
  const lastHash = db.prepare<[], { hash: string | null }>('SELECT hash FROM events ORDER BY position DESC LIMIT 1');
  // The data is bound as text, or, for a large record, as its UTF-8 bytes (read as text by the
  // CAST, without converting): then the chain hashes those bytes and the text is encoded once.
  const insert = db.prepare(`INSERT INTO events (${COLUMNS}) VALUES (NULL, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?)`);
  db.exec(APPEND_KEYS_SCHEMA);
  const keyed = db.prepare<[string], { next_expected_revision: number; first_position: number; last_position: number }>(
    'SELECT next_expected_revision, first_position, last_position FROM append_keys WHERE key = ?',
  );
  const recordKey = db.prepare('INSERT INTO append_keys (key, stream_id, next_expected_revision, first_position, last_position) VALUES (?, ?, ?, ?, ?)');
  return db.transaction((streamId: string, events: readonly AppendRow[], options: AppendOptions, recordedAt: string): AppendResult => {
    const key = options.idempotencyKey;
    checkIdempotencyKey(key);
    if (key !== undefined) {
      // Read under the write lock (.immediate): no other writer can record the key meanwhile.
      const earlier = keyed.get(key);
      if (earlier) return { nextExpectedRevision: earlier.next_expected_revision, firstPosition: earlier.first_position, lastPosition: earlier.last_position, duplicate: true };
    }
    const current = lastRevision.get(streamId)?.revision ?? null;
    checkExpectedRevision(streamId, options.expectedRevision ?? 'any', current);
    const ctx = options.context;
    const actor = JSON.stringify(ctx.actor);
    const projectId = ctx.projectId ?? null;
    const causationId = ctx.causationId ?? null;
    const correlationId = ctx.correlationId ?? null;
    // A log upgraded in place: its last record precedes the chain, which starts with this append.
    const link = chained ? appendChain(lastHash.get()?.hash ?? CHAIN_START, { streamId, recordedAt, projectId, actorText: actor, causationId, correlationId }) : null;
    let revision = current ?? -1;
    let first = 0;
    let last = 0;
    for (const event of events) {
      revision++;
      const type = event.type;
      const schemaVersion = event.schemaVersion ?? 1;
      const text = event.serialized ?? JSON.stringify(event.data);
      const data = text.length > ENCODE_ONCE_CHARS ? Buffer.from(text, 'utf8') : text;
      const eventId = event.eventId ?? randomUUID();
      const info = insert.run(
        streamId,
        revision,
        type,
        schemaVersion,
        data,
        eventId,
        recordedAt,
        projectId,
        actor,
        causationId,
        correlationId,
        link ? link(revision, type, schemaVersion, data, eventId) : null,
      );
      last = Number(info.lastInsertRowid);
      if (!first) first = last;
    }
    if (key !== undefined) recordKey.run(key, streamId, revision, first, last);
    return { nextExpectedRevision: revision, firstPosition: first, lastPosition: last };
  });
}
