/**
 * A storage fault: the service cannot make a write durable (its log is gone or replaced, the disk is
 * full, the data directory is read-only, the device fails, or the log's server cannot be reached). Writes answer 503 with the reason and
 * `/_health` reports it, so nothing is acknowledged that is not durable.
 */
export type StorageFaultReason = 'log_missing' | 'log_replaced' | 'disk_full' | 'read_only' | 'io_error' | 'log_unreachable';

const DETAILS: Record<StorageFaultReason, string> = {
  log_missing: 'The event log file is missing from the data directory; writes are refused until the service is restarted on its data.',
  log_replaced: 'The event log file was replaced by another file; writes are refused until the service is restarted on its data.',
  disk_full: 'The disk holding the data directory is full; writes are refused until space is freed.',
  read_only: 'The data directory is read-only; writes are refused until it is writable again.',
  io_error: 'The data directory cannot be written (I/O error); writes are refused.',
  log_unreachable: 'The event log server cannot be reached; writes are refused until it answers again.',
};

export interface StorageFault {
  reason: StorageFaultReason;
  detail: string;
}

export const storageFault = (reason: StorageFaultReason): StorageFault => ({ reason, detail: DETAILS[reason] });

export class StorageUnavailableError extends Error {
  readonly status = 503;

  constructor(readonly fault: StorageFault) {
    super(fault.detail);
    this.name = 'StorageUnavailableError';
  }

  /** The spec's error shape; `code` is the reason, so clients and operators can tell the faults apart. */
  toBody() {
    return { type: 'server_error', code: `storage_${this.fault.reason}`, detail: this.fault.detail, attr: null };
  }
}

/** The errors adapters have marked as faults of their store (see markStorageFault). */
const storeFaults = new WeakSet<object>();

/**
 * Called by an adapter on an error of its engine that says the store itself is failing (full,
 * read-only, corrupt, busy, unreachable) rather than that the data written is bad: each engine's
 * error codes stay in its adapter, which marks such errors before rethrowing them. Answers `err`.
 */
export function markStorageFault<E>(err: E): E {
  if (typeof err === 'object' && err !== null) storeFaults.add(err);
  return err;
}

/**
 * Whether a store's adapter marked `err` as a fault of the store. A projection meeting one must
 * stop and retry, never quarantine the event: the event is not to blame.
 */
export function isStorageFault(err: unknown): boolean {
  return typeof err === 'object' && err !== null && storeFaults.has(err);
}

/** What `/_health` shows about storage: nothing when writes can be made durable. */
export interface StorageMonitor {
  /** Null when healthy; probes the files (cheaply) on every call. */
  fault(): StorageFault | null;
}
