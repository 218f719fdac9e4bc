import { storageFault, StorageUnavailableError, type StorageFault, type StorageMonitor } from './storage-fault';

/**
 * A shared log's storage status, behind the same interface as the SQLite file guard: the last
 * operation that could not reach the server leaves `log_unreachable`, the next one that succeeds
 * clears it. Such an operation fails with StorageUnavailableError, so a write answers 503
 * storage_log_unreachable and is never acknowledged. Each adapter says which of its errors mean
 * "unreachable".
 */
export class ReachabilityMonitor implements StorageMonitor {
  private last: StorageFault | null = null;

  constructor(private readonly isUnreachable: (err: unknown) => boolean) {}

  async run<T>(operation: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await operation();
    } catch (err) {
      if (!this.isUnreachable(err)) throw err;
      this.last = storageFault('log_unreachable');
      throw new StorageUnavailableError(this.last);
    }
    this.last = null;
    return result;
  }

  fault(): StorageFault | null {
    return this.last;
  }
}
