import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { replyFrom, startTsWorker } from '../../threads';
import { WrongExpectedRevisionError, type AppendOptions, type AppendResult } from '../../store/event-log';
import type { AppendFailure, AppendThreadSetup, FromAppendThread, ToAppendThread } from './append-messages';
import type { AppendRow } from './append-transaction';

/**
 * The log's writer thread (append-thread.ts), started on the first large append and kept,
 * unreferenced while idle. One append at a time: the log awaits each before the next write.
 */
export class AppendThread {
  private thread: Worker | undefined;
  private nextId = 1;

  constructor(private readonly setup: AppendThreadSetup) {}

  /**
   * Sends each row in a turn of its own (a row is at most one record's text; every row of a large
   * request in one message was a long turn of copying), then runs the transaction on the thread.
   */
  async append(streamId: string, events: readonly AppendRow[], options: AppendOptions, recordedAt: string): Promise<AppendResult> {
    const thread = (this.thread ??= this.start());
    thread.ref();
    const id = this.nextId++;
    let reply: FromAppendThread;
    try {
      reply = await replyFrom<FromAppendThread>(thread, id, 'log writer thread', () => {
        void (async () => {
          for (let i = 0; i < events.length; i++) {
            if (i > 0) await nextTurn();
            const e = events[i];
            // Only the text crosses (copying `data`'s objects would be a long turn of its own).
            const row: AppendRow = { type: e.type, data: undefined, schemaVersion: e.schemaVersion, eventId: e.eventId, serialized: e.serialized ?? JSON.stringify(e.data) };
            thread.postMessage({ id, row } satisfies ToAppendThread);
          }
          thread.postMessage({ id, streamId, options, recordedAt } satisfies ToAppendThread);
        })();
      });
    } catch (error) {
      // The thread itself failed (not the transaction): it is replaced on the next append.
      this.drop();
      throw error;
    }
    thread.unref();
    if (reply.ok) return reply.result;
    throw rebuilt(streamId, reply.error);
  }

  private start(): Worker {
    const thread = startTsWorker(new URL('./append-thread.ts', import.meta.url), this.setup);
    thread.once('exit', () => {
      if (this.thread === thread) this.thread = undefined;
    });
    return thread;
  }

  private drop(): void {
    const thread = this.thread;
    this.thread = undefined;
    void thread?.terminate();
  }

  /** Lets the thread close its connection, then waits for it to exit (terminated if it does not within a second). */
  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    if (!thread) return;
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    thread.postMessage('stop');
    const timer = setTimeout(() => void thread.terminate(), 1000);
    await exited;
    clearTimeout(timer);
  }
}

function rebuilt(streamId: string, failure: AppendFailure): Error {
  if (failure.name === 'WrongExpectedRevisionError' && failure.expected !== undefined && failure.actual !== undefined) {
    return new WrongExpectedRevisionError(streamId, failure.expected, failure.actual);
  }
  const error = new Error(failure.message);
  error.name = failure.name;
  // The code is what tells a storage fault (full disk, read-only, I/O) from a bug (LogFileGuard.translate).
  if (failure.code !== undefined) Object.assign(error, { code: failure.code });
  return error;
}
