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
import { standardQuery } from './run-query';
import type { StoredRow } from './stored-row';

const port = parentPort!;
const setup = workerData as LinesSetup;

/** Entries kept; beyond this the cache starts over (memory stays bounded on huge runs). */
const MAX_PERSONS = 100_000;
const persons = new Map<string, string | null>();

let credits = setup.aheadPages;
let answer: ((properties: (string | null)[]) => void) | null = null;
let acked: (() => void) | null = null;
port.on('message', (m: ToLinesThread) => {
  if (m.type === 'persons') answer?.(m.properties);
  else {
    credits++;
    acked?.();
  }
});

const send = (m: FromLinesThread, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** Properties of the page's persons not known yet, from the export's thread. */
async function learnPersons(rows: readonly StoredRow[]): Promise<void> {
  // Cleared before the page's ids are looked at, so that every person the page names is known after.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, only how much is remembered
  if (persons.size > MAX_PERSONS) persons.clear();
  const missing = new Set<string>();
  for (const r of rows) if (r[7] !== null && !persons.has(r[7])) missing.add(r[7]);
  if (missing.size === 0) return;
  const ids = [...missing];
  const properties = await new Promise<(string | null)[]>((resolve) => {
    answer = resolve;
    send({ type: 'persons', ids });
  });
  answer = null;
  for (let i = 0; i < ids.length; i++) persons.set(ids[i], properties[i]);
}

const lookup = (id: string | null) => (id === null ? null : (persons.get(id) ?? null));

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
      text += storedJsonLine(r[0], r[1], properties, r[3], Number(r[4]), fromMs(r[5]), fromMs(r[6]), r[7], lookup(r[7]), ops.set, ops.setOnce, r[8] === '' ? null : r[8]);
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
    await learnPersons(page.rows);
    const { chunks, counts } = encodePage(page.rows);
    while (credits === 0) await new Promise<void>((resolve) => (acked = resolve));
    acked = null;
    credits--;
    send({ type: 'page', range: indexOf.get(page.range)!, chunks, counts, last: page.last }, chunks.map((c) => c.buffer as ArrayBuffer));
  }
} catch (err) {
  send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}
