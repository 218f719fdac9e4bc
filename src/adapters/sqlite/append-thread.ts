// Worker-thread entry: runs the log's large appends on a connection of its own, so that inserting
// and committing tens of MB (the WAL frames are written at commit) never holds the event loop. The same transaction as the log's own connection
// (append-transaction.ts); the log sends one large append at a time and holds its other appends
// back meanwhile, so they never wait on the write lock synchronously.
import { parentPort, workerData } from 'node:worker_threads';
import { WrongExpectedRevisionError } from '../../store/event-log';
import type { AppendThreadSetup, FromAppendThread, ToAppendThread } from './append-messages';
import { appendTransaction, type AppendRow } from './append-transaction';
import { openSqlite } from './open';

const setup = workerData as AppendThreadSetup;
const db = openSqlite(setup.path, { durability: setup.durability, pageSize: 4096, autoCheckpointPages: setup.autoCheckpointPages });
const append = appendTransaction(db, { chain: setup.chain });
const port = parentPort!;
/** Rows of the append being received (one append at a time). */
let rows: AppendRow[] = [];

port.on('message', (message: ToAppendThread | 'stop') => {
  if (message === 'stop') {
    db.close();
    port.close();
    return;
  }
  if ('row' in message) {
    rows.push(message.row);
    return;
  }
  const { id, streamId, options, recordedAt } = message;
  const events = rows;
  rows = [];
  let reply: FromAppendThread;
  try {
    reply = { id, ok: true, result: append(streamId, events, options, recordedAt) };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    const code = (e as { code?: unknown }).code;
    reply = {
      id,
      ok: false,
      error: {
        name: e.name,
        message: e.message,
        ...(typeof code === 'string' ? { code } : {}),
        ...(e instanceof WrongExpectedRevisionError ? { expected: e.expected, actual: e.actual } : {}),
      },
    };
  }
  port.postMessage(reply);
});
