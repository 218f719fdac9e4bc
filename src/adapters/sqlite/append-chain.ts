import { appendChain, type SharedContent } from '../../store/hash-chain';
import { HASH_BYTES } from './chain-hashes';
import type { ChainRecords } from './chain-messages';

/**
 * The hashes of one append's records, as the append stores them: each in its record's own row
 * (a small append: 64 hex digits, as the chain has always been stored), or all in one row for the
 * append (a batch hashed on the chain thread: chain-hashes.ts).
 */
export type AppendHashes = { kind: 'rows'; hashOf(k: number): string } | { kind: 'append'; all(): Buffer };

/** An append's chain before its transaction holds the write lock. */
export interface PendingChain {
  /**
   * Record k's data to insert: the UTF-8 bytes the chain thread hashes, where the records were
   * encoded for it (binding them spares SQLite encoding the text again), else the data as given.
   */
  stored(k: number): string | Buffer;
  /** Under the write lock: the predecessor's hash and the first record's revision are known. */
  start(prev: string, firstRevision: number): AppendHashes;
  /** The transaction ended without starting it (a duplicate key, a wrong revision, an error). */
  cancel(): void;
}

/** The chain hashed in line, record by record as the rows are inserted: for small appends. */
export function inlineChain(shared: SharedContent, records: ChainRecords): PendingChain {
  return {
    stored: (k) => records.data[k],
    start: (prev, firstRevision) => {
      const link = appendChain(prev, shared);
      return { kind: 'rows', hashOf: (k) => link(firstRevision + k, records.types[k], records.schemaVersions[k], records.data[k], records.eventIds[k]) };
    },
    cancel: () => undefined,
  };
}

/**
 * Every hash of an append, from record `from` on, into `into` (32 bytes each): the reference the
 * chain thread's output equals, and how an append finishes what a lost thread left.
 */
export function inlineHashes(prev: string, shared: SharedContent, records: ChainRecords, firstRevision: number, into?: Buffer, from = 0): Buffer {
  const hashes = into ?? Buffer.allocUnsafe(HASH_BYTES * records.data.length);
  const link = appendChain(prev, shared);
  for (let k = from; k < records.data.length; k++) {
    hashes.write(link(firstRevision + k, records.types[k], records.schemaVersions[k], records.data[k], records.eventIds[k]), k * HASH_BYTES, 'hex');
  }
  return hashes;
}

