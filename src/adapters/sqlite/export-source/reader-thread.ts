// Worker-thread entry: reads time slices of export runs and encodes them as JSONLines, so reading
// and encoding (most of an export's cost) run on every core while the caller writes. The thread
// serves run after run (see ReaderPool); each run opens its own connections.
import type { Statement } from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import { openSqlite } from '../open';
import { keysetBefore, keysetOf, lineFromRow } from './line-rows';
import { PersonProperties } from './person-cache';
import type { FromReader, ReaderSetup, SliceOrder, ToReader } from './reader-messages';

const port = parentPort!;

interface Run {
  setup: ReaderSetup;
  page: Statement<unknown[]>;
  lookup: (personId: string | null) => string | null;
  close(): void;
}

/** The run's statement and person lookups. */
function open(setup: ReaderSetup): Run {
  const db = openSqlite(setup.path, { readonly: true });
  // Looked up one person at a time: a run's events share few persons, so the cache nearly always
  // answers, and batching the misses cost more per row than it saved.
  const personsDb = openSqlite(setup.path, { readonly: true });
  const persons = new PersonProperties(personsDb);
  return {
    setup,
    page: db.prepare<unknown[]>(setup.pageSql).raw(true),
    lookup: (personId) => persons.get(personId),
    close() {
      db.close();
      personsDb.close();
    },
  };
}

let credits = 0;
const orders: Exclude<ToReader, { type: 'ack' }>[] = [];
let wake: (() => void) | null = null;
const nextMessage = () => new Promise<void>((resolve) => (wake = resolve));
port.on('message', (m: ToReader) => {
  if (m.type === 'ack') credits++;
  else orders.push(m);
  const w = wake;
  wake = null;
  w?.();
});

const send = (m: FromReader, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/**
 * A page as one buffer (one transfer, one object for the receiving heap to collect) and where
 * each chunk of `chunkRows` rows ends in it.
 */
function encodePage({ setup, lookup }: Run, rows: unknown[][]): { bytes: Uint8Array; ends: number[]; counts: number[] } {
  const parts: Buffer[] = [];
  const ends: number[] = [];
  const counts: number[] = [];
  let size = 0;
  for (let i = 0; i < rows.length; i += setup.chunkRows) {
    const end = Math.min(rows.length, i + setup.chunkRows);
    let text = '';
    for (let j = i; j < end; j++) text += lineFromRow(rows[j], lookup);
    const part = Buffer.from(text);
    parts.push(part);
    ends.push((size += part.length));
    counts.push(end - i);
  }
  // Past 4 KB a new Buffer owns its ArrayBuffer; a smaller one may sit in the shared pool.
  const bytes = size > 4096 ? Buffer.concat(parts, size) : new Uint8Array(Buffer.concat(parts, size));
  return { bytes, ends, counts };
}

async function readSlice(run: Run, order: SliceOrder): Promise<void> {
  let after = keysetBefore(order.start);
  for (;;) {
    while (credits === 0) await nextMessage();
    const rows = run.page.all(...order.params, ...after, run.setup.pageRows) as unknown[][];
    if (rows.length > 0) {
      const page = encodePage(run, rows);
      send({ type: 'page', slice: order.index, ...page }, [page.bytes.buffer as ArrayBuffer]);
      credits--;
      after = keysetOf(rows[rows.length - 1]);
    }
    if (rows.length < run.setup.pageRows) break;
  }
  send({ type: 'sliceDone', slice: order.index });
}

async function main(): Promise<never> {
  let run: Run | null = null;
  for (;;) {
    while (orders.length === 0) await nextMessage();
    const order = orders.shift()!;
    try {
      if (order.type === 'run') {
        run = open(order.setup);
        credits = order.setup.window;
      } else if (order.type === 'endRun') {
        run?.close();
        run = null;
      } else {
        if (run === null) throw new Error('slice ordered outside a run');
        await readSlice(run, order);
      }
    } catch (err) {
      // The caller stops the run and discards this thread.
      send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    }
  }
}

void main();
