import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Observable } from 'rxjs';
import type { RecordedEvent } from '../../streams';
import type { ReadAllOptions, SubscribeOptions } from './event-log';
import { StorageUnavailableError } from './storage-fault';

export interface SubscriptionSource {
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Registers a wake-up for appends (a hint); returns the unregister function. */
  onAppend(wake: () => void): () => void;
  pollIntervalMs: number;
  /** Lets the log end every subscription on close(). */
  closers: Set<() => void>;
}

/**
 * Catch-up then live for every log adapter: reads after the last delivered position, and sleeps
 * until a hint (an in-process append, LISTEN/NOTIFY, a server-side subscription) or the poll. The
 * adapters differ only in their hint.
 */
export function subscribeBatches(source: SubscriptionSource, options: SubscribeOptions = {}): Observable<RecordedEvent[]> {
  const batchSize = options.batchSize ?? 1000;
  return new Observable<RecordedEvent[]>((subscriber) => {
    // The port's promise: reading after `last` reads what follows `last`.
    let after = options.afterPosition;
    let closed = false;
    let dirty = true;
    let wake: (() => void) | null = null;
    const notify = () => {
      dirty = true;
      const w = wake;
      wake = null;
      w?.();
    };
    const stopListening = source.onAppend(notify);
    const timer = setInterval(notify, source.pollIntervalMs);
    timer.unref();
    const close = () => {
      closed = true;
      stopListening();
      clearInterval(timer);
      notify();
    };
    source.closers.add(close);
    (async () => {
      while (!closed) {
        dirty = false;
        let batch: RecordedEvent[];
        try {
          batch = await source.readAll({ afterPosition: after, maxCount: batchSize, maxBytes: options.maxBytes });
        } catch (err) {
          // The server is out of reach: wait for the next poll and read from the same position,
          // so a projection resumes after an outage instead of stopping for good.
          if (closed || !(err instanceof StorageUnavailableError)) throw err;
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        if (closed) break;
        if (batch.length > 0) {
          after = batch[batch.length - 1].position;
          subscriber.next(batch);
          await yieldToLoop();
        } else if (!dirty) {
          await new Promise<void>((resolve) => (wake = resolve));
        }
      }
      subscriber.complete();
    })().catch((err) => {
      if (!closed) subscriber.error(err);
    });
    return () => {
      source.closers.delete(close);
      close();
    };
  });
}
