import { storageFault, StorageUnavailableError, type StorageFault, type StorageMonitor } from '../../store/storage-fault';
import { isUnreachable } from './errors';

/**
 * The KurrentDB log's storage status, as the PostgreSQL adapter's: the last operation that could
 * not reach the server leaves `log_unreachable`, the next one that succeeds clears it. Such an
 * operation fails with StorageUnavailableError, so a write answers 503 storage_log_unreachable and
 * is never acknowledged.
 */
export class ReachabilityMonitor implements StorageMonitor {
  private last: StorageFault | null = null;

  async run<T>(operation: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await operation();
    } catch (err) {
      if (!isUnreachable(err)) throw err;
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
