// Worker-thread entry: reads its share of one standard run's ranges from a ClickHouse server and
// encodes their pages as JSONLines (receiving the answers, parsing and encoding them is most of an
// export's cost), while the export's own thread writes the bytes (encoded-lines.ts). Person
// properties stay with the read models, which the export's thread holds: the thread asks it for
// the ids a page names first. Each range ends with its last page: no message says the thread is done.
import { parentPort, workerData } from 'node:worker_threads';
import { storedJsonLine } from '../../../exports/formats/json-line';
import { personOperations } from '../../../exports/worker/records';
import { ClickHouseClient } from '../http-client';
import { fromMs } from '../time';
import type { FromLinesThread, LinesSetup, ToLinesThread } from './lines-messages';
import { pagesByRange } from './page-ranges';
import { RunPersons } from './person-properties';
import { standardQuery } from './run-query';
import type { StoredRow } from './stored-row';

const port = parentPort!;
const setup = workerData as LinesSetup;

let credits = setup.aheadPages;
let answer: ((found: Map<string, string>) => void) | null = null;
let acked: (() => void) | null = null;
port.on('message', (m: ToLinesThread) => {
  if (m.type === 'persons') answer?.(m.found);
  else {
    credits++;
    acked?.();
  }
});

const send = (m: FromLinesThread, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** The run's person properties, looked up by the export's thread, which holds the read models. */
const persons = new RunPersons(async (ids) => {
  const found = await new Promise<Map<string, string>>((resolve) => {
    answer = resolve;
    send({ type: 'persons', ids });
  });
  answer = null;
  return found;
});

/** A page as chunks of `chunkRows` rows' lines, each its own buffer (transferred, not copied), and their row counts. */
function encodePage(rows: StoredRow[]): { chunks: Uint8Array[]; counts: number[] } {
  const chunks: Uint8Array[] = [];
  const counts: number[] = [];
  for (let i = 0; i < rows.length; i += setup.chunkRows) {
    let text = '';
    const end = Math.min(rows.length, i + setup.chunkRows);
    // The line jsonLine(recordFromRow(…)) gives for the row (as the source's own batches make it,
    // index.ts), without the record: its fields go straight into the line.
    for (let k = i; k < end; k++) {
      const r = rows[k];
      const properties = r[2];
      const ops = personOperations(properties);
      text += storedJsonLine(r[0], r[1], properties, r[3], Number(r[4]), fromMs(r[5]), fromMs(r[6]), r[7], persons.get(r[7]), ops.set, ops.setOnce, r[8] === '' ? null : r[8]);
    }
    // Not from Buffer's shared pool: each chunk owns its memory, which the message transfers.
    const bytes = new Uint8Array(Buffer.byteLength(text, 'utf8'));
    encoder.encodeInto(text, bytes);
    chunks.push(bytes);
    counts.push(end - i);
  }
  return { chunks, counts };
}

const encoder = new TextEncoder();

try {
  const client = new ClickHouseClient(setup.config);
  const query = standardQuery(setup.exp, setup.window);
  const time = setup.window.isBackfill ? 5 : 6;
  const indexOf = new Map(setup.ranges.map((range, i) => [range, setup.indexes[i]]));
  const pages = pagesByRange(
    setup.ranges,
    setup.pageRows,
    (range, after) => client.arrays<StoredRow>(query.pageSql(after, setup.pageRows, range)),
    (r) => [Number(r[time]), r[0]],
  );
  for await (const page of pages) {
    await persons.prefetch(page.rows.map((r) => r[7]));
    const { chunks, counts } = encodePage(page.rows);
    while (credits === 0) await new Promise<void>((resolve) => (acked = resolve));
    acked = null;
    credits--;
    send({ type: 'page', range: indexOf.get(page.range)!, chunks, counts, last: page.last }, chunks.map((c) => c.buffer as ArrayBuffer));
  }
} catch (err) {
  send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}
