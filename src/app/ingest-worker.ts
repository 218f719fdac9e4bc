// Worker-thread entry of the `ingest` role: opens this thread's own handle on the log from plain
// data and runs JetStream's consumers on it, so appending what capture published never takes turns
// on the event loop that answers capture's requests. The consumers append to the adapter, not
// through the event contracts: capture validated the records and stamped their schema versions
// before publishing, and the contracts would parse every record's data, which the SQLite and
// PostgreSQL logs store as the published text without reading it.
import { parentPort, workerData } from 'node:worker_threads';
import { startIngestConsumers, type IngestConsumerOptions } from '../adapters/nats/ingest-consumer';
import { niceThisThread } from '../threads';
import { openLogFromSpec, type EventLogSpec } from './event-log';

/** The data the main thread passes (see ingest-transport.ts). */
export interface IngestWorkerData {
  log: EventLogSpec;
  consumers: Omit<IngestConsumerOptions, 'onError'>;
  /** CPU niceness of this thread (0: unchanged): capture's requests go first on a busy machine. */
  nice?: number;
}

/** What the thread tells the main thread. */
export type FromIngestWorker =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  /** An append committed here: the main thread wakes the projections at once instead of at their poll. */
  | { type: 'appended'; position: number }
  | { type: 'error'; message: string; detail: string }
  | { type: 'stopped' };

export type ToIngestWorker = { type: 'stop' };

// The main thread imports this module's types only (erased): the body below runs in the thread.
if (parentPort) {
  const port = parentPort;
  const data = workerData as IngestWorkerData;
  const send = (m: FromIngestWorker) => port.postMessage(m);
  niceThisThread(data.nice ?? 0);
  try {
    const opened = await openLogFromSpec(data.log);
    const appended = opened.notifications.appended$.subscribe((position) => send({ type: 'appended', position }));
    const consumers = await startIngestConsumers(opened.log, {
      ...data.consumers,
      onError: (message, err) => send({ type: 'error', message, detail: err instanceof Error ? err.message : String(err) }),
    });
    port.on('message', (m: ToIngestWorker) => {
      if (m.type !== 'stop') return;
      void (async () => {
        await consumers.stop();
        appended.unsubscribe();
        await opened.log.close();
        send({ type: 'stopped' });
        port.close();
      })();
    });
    send({ type: 'ready' });
  } catch (err) {
    send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    port.close();
  }
}
