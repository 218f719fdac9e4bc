// Worker-thread entry of the checkpointer (see index.ts).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { niceThisThread } from '../../../threads';

export interface CheckpointerSetup {
  /** SQLite files in WAL mode, each written by other connections. */
  files: string[];
  periodMs: number;
  /** CPU niceness of this thread (0..19). */
  nice: number;
}

const setup = workerData as CheckpointerSetup;
niceThisThread(setup.nice);
const dbs = setup.files.map((file) => {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  return db;
});

// PASSIVE never waits for readers or writers: it copies what it can and leaves the rest to the next tick.
const tick = () => {
  for (const db of dbs) {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      /* busy or closing: the next tick, or a writer's own checkpoint, copies those frames */
    }
  }
};
const timer = setInterval(tick, setup.periodMs);

parentPort!.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  for (const db of dbs) db.close();
  parentPort!.close();
});
