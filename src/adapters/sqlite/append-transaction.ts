import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../../../streams';
import { checkExpectedRevision, checkIdempotencyKey, type AppendOptions, type AppendResult } from '../../store/event-log';
import { CHAIN_START } from '../../store/hash-chain';
import { inlineChain, type PendingChain } from './append-chain';
import type { ChainHasher } from './chain-hasher';
import type { ChainRecords } from './chain-messages';
import { CHAIN_HASHES_SCHEMA, hexOf, STORED_HASH_SQL } from './chain-hashes';
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
 * (append-thread.ts) so that both check, number and chain exactly alike. It runs `.immediate`:
 * taking the write lock before reading the revision and the last record's hash means two writers
 * cannot both pass the check, nor both chain onto the same predecessor.
 * `chain: false` stores no hashes: only for measuring what the chain costs (test/bench/log.ts).
 * With a `hasher`, a batch's chain is hashed on its thread while the rows are inserted, and its
 * hashes stored in one row for the append (chain-hashes.ts); a small append's are stored in its rows.
 */
export function appendTransaction(db: SqliteDatabase, options: { chain?: boolean; hasher?: ChainHasher } = {}) {
  const chained = options.chain ?? true;
  const hasher = options.hasher;
  const lastRevision = db.prepare<[string], { revision: number }>('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1');
  db.exec(CHAIN_HASHES_SCHEMA);
  const lastHash = db.prepare<[], { hash: string | Buffer | null }>(`SELECT ${STORED_HASH_SQL} AS hash FROM events ORDER BY position DESC LIMIT 1`);
  const storeHashes = db.prepare<[number, number, Buffer]>('INSERT INTO chain_hashes (last_position, first_position, hashes) VALUES (?, ?, ?)');
  // The data is bound as text, or, for a large record, as its UTF-8 bytes (read as text by the
  // CAST, without converting): then the chain hashes those bytes and the text is encoded once.
  const insert = db.prepare(`INSERT INTO events (${COLUMNS}) VALUES (NULL, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?)`);
  db.exec(APPEND_KEYS_SCHEMA);
  const keyed = db.prepare<[string], { next_expected_revision: number; first_position: number; last_position: number }>(
    'SELECT next_expected_revision, first_position, last_position FROM append_keys WHERE key = ?',
  );
  const recordKey = db.prepare('INSERT INTO append_keys (key, stream_id, next_expected_revision, first_position, last_position) VALUES (?, ?, ?, ?, ?)');
  const transaction = db.transaction(
    (streamId: string, records: ChainRecords, chain: PendingChain | null, options: AppendOptions, actor: string, recordedAt: string): AppendResult => {
      const key = options.idempotencyKey;
      if (key !== undefined) {
        // Read under the write lock (.immediate): no other writer can record the key meanwhile.
        const earlier = keyed.get(key);
        if (earlier) return { nextExpectedRevision: earlier.next_expected_revision, firstPosition: earlier.first_position, lastPosition: earlier.last_position, duplicate: true };
      }
      const current = lastRevision.get(streamId)?.revision ?? null;
      checkExpectedRevision(streamId, options.expectedRevision ?? 'any', current);
      const ctx = options.context;
      const firstRevision = (current ?? -1) + 1;
      // A log upgraded in place: its last record precedes the chain, which starts with this append.
      const hashes = chain ? chain.start(hexOf(lastHash.get()?.hash) ?? CHAIN_START, firstRevision) : null;
      let first = 0;
      let last = 0;
      for (let k = 0; k < records.data.length; k++) {
        const info = insert.run(
          streamId,
          firstRevision + k,
          records.types[k],
          records.schemaVersions[k],
          chain ? chain.stored(k) : records.data[k],
          records.eventIds[k],
          recordedAt,
          ctx.projectId ?? null,
          actor,
          ctx.causationId ?? null,
          ctx.correlationId ?? null,
          hashes?.kind === 'rows' ? hashes.hashOf(k) : null,
        );
        last = Number(info.lastInsertRowid);
        if (!first) first = last;
      }
      if (hashes?.kind === 'append') storeHashes.run(last, first, hashes.all());
      const revision = firstRevision + records.data.length - 1;
      if (key !== undefined) recordKey.run(key, streamId, revision, first, last);
      return { nextExpectedRevision: revision, firstPosition: first, lastPosition: last };
    },
  );
  // The records are encoded, and sent to the chain thread, before the write lock is taken.
  return ((streamId, events, options, recordedAt) => {
    checkIdempotencyKey(options.idempotencyKey);
    const records = recordsOf(events);
    const ctx = options.context;
    const actor = JSON.stringify(ctx.actor);
    const shared = { streamId, recordedAt, projectId: ctx.projectId ?? null, actorText: actor, causationId: ctx.causationId ?? null, correlationId: ctx.correlationId ?? null };
    const chain = chained ? (hasher ? hasher.prepare(shared, records) : inlineChain(shared, records)) : null;
    try {
      return transaction.immediate(streamId, records, chain, options, actor, recordedAt);
    } finally {
      chain?.cancel();
    }
  }) satisfies AppendTransaction;
}

function recordsOf(events: readonly AppendRow[]): ChainRecords {
  const records: ChainRecords = { types: [], schemaVersions: [], data: [], eventIds: [] };
  for (const event of events) {
    const text = event.serialized ?? JSON.stringify(event.data);
    records.types.push(event.type);
    records.schemaVersions.push(event.schemaVersion ?? 1);
    records.data.push(text.length > ENCODE_ONCE_CHARS ? Buffer.from(text, 'utf8') : text);
    records.eventIds.push(event.eventId ?? randomUUID());
  }
  return records;
}

