import type { SharedContent } from '../../store/hash-chain';

/** An append's records as the chain covers them, by column. */
export interface ChainRecords {
  types: string[];
  schemaVersions: number[];
  /** Each record's data as stored: its JSON text, or the UTF-8 bytes of that text. */
  data: (string | Buffer)[];
  eventIds: string[];
}

/**
 * One append as the chain thread hashes it (chain-thread.ts): the records cross before the append
 * takes the write lock; what is only known under it (the predecessor's hash, the first revision)
 * and the hashes cross through `sab` (layout below). The data cross as UTF-8 in `texts`, shared
 * memory the log reuses: encoding a thousand texts into it costs less than copying them as strings
 * in the message, and the insert binds those bytes.
 */
export interface ChainJob {
  /** The records' types and schema versions, in runs (a batch's records mostly share both). */
  kinds: { type: string; schemaVersion: number; count: number }[];
  sab: SharedArrayBuffer;
  shared: SharedContent;
  texts: SharedArrayBuffer;
  /** Where each record's data ends in `texts` (it starts where the one before ends). */
  ends: Int32Array;
  eventIds: string[];
}

/** Int32 slots at the start of a job's memory. */
export const SLOT = {
  /** How many hashes the thread has written. */
  written: 0,
  /** Non-zero once the thread failed: the append hashes what is left itself. */
  failed: 1,
  /** START below. */
  start: 2,
  /** 1 when the predecessor's hash is at PREV_OFFSET, 0 at the chain's start. */
  hasPrev: 3,
} as const;

export const START = { waiting: 0, go: 1, cancelled: 2 } as const;

/** Float64: the first record's revision. */
export const FIRST_REVISION_OFFSET = 16;
/** 32 bytes: the predecessor's hash. */
export const PREV_OFFSET = 24;
/** 32 bytes per record: the hashes. */
export const HASHES_OFFSET = 64;
