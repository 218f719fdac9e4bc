import { storageFault, StorageUnavailableError, type StorageFault, type StorageMonitor } from '../../../store/storage-fault';

/** Socket errors that mean the server, or the way to it, is gone. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs of a server shutting down or refusing sessions: 57P01-03 (shutdowns, cannot connect now), 53300 (too many connections). */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What node-postgres says when a socket closes under a query or a connection attempt times out. */
const CLIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i;

/** Whether an error says the log's server cannot be reached, rather than that a statement failed. */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && CLIENT_MESSAGES.test(message);
}

/**
 * The PostgreSQL log's storage status, behind the same interface as the SQLite file guard: the
 * last operation that could not reach the server leaves `log_unreachable`, the next one that
 * succeeds clears it. Such an operation fails with StorageUnavailableError, so a write answers 503
 * and is never acknowledged.
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
