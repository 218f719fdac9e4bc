import type { Writable } from 'node:stream';

/** One object being written. Nothing is visible under its key before `commit` resolves. */
export interface ObjectUpload {
  /** Receives the file's bytes; ended by the format writer. */
  readonly stream: Writable;
  /** Makes the finished object visible (called after `stream` has finished). */
  commit(): Promise<void>;
  /** Drops whatever was written; safe to call after a failure, and more than once. */
  discard(): Promise<void>;
}

/** The few operations file exports need from a bucket or a directory. */
export interface ObjectStore {
  open(key: string): Promise<ObjectUpload>;
  put(key: string, body: string): Promise<void>;
  /** Keys starting with `prefix` (a key prefix, not necessarily a directory). */
  list(prefix: string): Promise<string[]>;
  remove(keys: readonly string[]): Promise<void>;
  /** A human-readable location for logs, e.g. `s3://bucket/key`. */
  describe(key: string): string;
}
