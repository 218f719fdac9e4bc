import type { Worker } from 'node:worker_threads';
import type { EncodedChunk } from '../../../exports/destinations';
import { startTsWorker } from '../../../threads';
import type { FromLinesThread, LinesSetup, ToLinesThread } from './lines-messages';
import type { PageRange } from './page-ranges';
import type { PersonPropertiesLookup } from './person-properties';

type Page = Extract<FromLinesThread, { type: 'page' }>;

/** A run as the lines threads share it: everything but the ranges, which are dealt out. */
export type LinesRun = Omit<LinesSetup, 'ranges' | 'indexes'>;

/**
 * A standard run's rows as JSONLines chunks, in the run's order, read from the server and encoded
 * on threads of their own (lines-thread.ts): this thread only looks up the persons a page names and
 * hands the bytes on. The ranges are dealt out in turn (range i to thread i mod `threads`), so each
 * thread reads its ranges in order while the others read the ones between; chunks are handed on
 * range by range. A thread runs ahead by `aheadPages` unacknowledged pages at most; all end with
 * the run (or when the caller stops early).
 */
export async function* encodedLines(
  run: LinesRun,
  ranges: readonly PageRange[],
  persons: PersonPropertiesLookup,
  threads: number,
  check: () => void,
): AsyncGenerator<EncodedChunk> {
  // Stryker disable next-line MethodExpression: equivalent, only how many threads share the ranges (a thread without any sends none)
  const n = Math.max(1, Math.min(threads, ranges.length));
  const received = ranges.map(() => ({ pages: [] as Page[], done: false }));
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const fail = (err: Error) => {
    failure ??= err;
    notify();
  };
  const workers: Worker[] = [];
  // Stryker disable next-line EqualityOperator: equivalent, a thread more would get no ranges
  for (let t = 0; t < n; t++) {
    const indexes = ranges.map((_, i) => i).filter((i) => i % n === t);
    const setup: LinesSetup = { ...run, ranges: indexes.map((i) => ranges[i]), indexes };
    const thread = startTsWorker(new URL('./lines-thread.ts', import.meta.url), setup);
    const post = (m: ToLinesThread) => thread.postMessage(m);
    thread.on('message', (m: FromLinesThread) => {
      if (m.type === 'persons') persons(m.ids).then((found) => post({ type: 'persons', found }), fail);
      else if (m.type === 'page') {
        received[m.range].pages.push(m);
        notify();
      } else if (m.type === 'failed') fail(new Error(`export reader failed: ${m.message}`));
    });
    // Errors crossing the thread boundary may arrive without their message.
    thread.on('error', (err: Error & { code?: string }) => fail(new Error(`export reader failed: ${err.message || err.code || String(err)}`)));
    thread.on('exit', (code) => fail(new Error(`export reader exited with code ${code}`)));
    workers.push(thread);
  }
  try {
    for (let current = 0; current < ranges.length; ) {
      const range = received[current];
      const page = range.pages.shift();
      if (page) {
        for (let i = 0; i < page.chunks.length; i++) yield { bytes: page.chunks[i], records: page.counts[i] };
        range.done = page.last;
        // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, the thread takes any message but persons for an ack
        workers[current % n].postMessage({ type: 'ack' } satisfies ToLinesThread);
        check();
      } else if (range.done) current++;
      else if (failure) throw failure;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
