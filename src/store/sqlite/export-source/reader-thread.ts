// Worker-thread entry: reads time slices of one export run and encodes them as JSONLines, so
// reading and encoding (most of an export's cost) run on every core while the caller writes.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from '../open';
import { keysetOf, lineFromRow } from './line-rows';
import { PersonProperties } from './person-cache';
import type { FromReader, ReaderSetup, SliceOrder, ToReader } from './reader-messages';

const setup = workerData as ReaderSetup;
const port = parentPort!;

/** The run's statement and person lookups; opened in `main` so a failure is reported as one. */
function open() {
  const db = openSqlite(setup.path, { readonly: true });
  // Looked up one person at a time: a run's events share few persons, so the cache nearly always
  // answers, and batching the misses cost more per row than it saved.
  const persons = new PersonProperties(openSqlite(setup.path, { readonly: true }));
  return { page: db.prepare(setup.pageSql).raw(true), lookup: (personId: string | null) => persons.get(personId) };
}
type Opened = ReturnType<typeof open>;

let credits = setup.window;
const slices: SliceOrder[] = [];
let wake: (() => void) | null = null;
const nextMessage = () => new Promise<void>((resolve) => (wake = resolve));
port.on('message', (m: ToReader) => {
  if (m.type === 'ack') credits++;
  else slices.push(m);
  const w = wake;
  wake = null;
  w?.();
});

const send = (m: FromReader, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/**
 * A page as one buffer (one transfer, one object for the receiving heap to collect) and where
 * each chunk of `chunkRows` rows ends in it.
 */
function encodePage({ lookup }: Opened, rows: unknown[][]): { bytes: Uint8Array; ends: number[]; counts: number[] } {
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

async function readSlice(source: Opened, order: SliceOrder): Promise<void> {
  let after: [string, number] = [order.start, -1];
  for (;;) {
    while (credits === 0) await nextMessage();
    const rows = source.page.all(...order.params, ...after, setup.pageRows) as unknown[][];
    if (rows.length > 0) {
      const page = encodePage(source, rows);
      send({ type: 'page', slice: order.index, ...page }, [page.bytes.buffer as ArrayBuffer]);
      credits--;
      after = keysetOf(rows[rows.length - 1]);
    }
    if (rows.length < setup.pageRows) break;
  }
  send({ type: 'sliceDone', slice: order.index });
}

async function main(): Promise<never> {
  const source = open();
  for (;;) {
    while (slices.length === 0) await nextMessage();
    await readSlice(source, slices.shift()!);
  }
}

main().catch((err: unknown) => send({ type: 'failed', message: err instanceof Error ? err.message : String(err) }));
