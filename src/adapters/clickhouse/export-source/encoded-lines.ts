import type { EncodedChunk } from '../../../exports/destinations';
import { startTsWorker } from '../../../threads';
import type { FromLinesThread, LinesSetup, ToLinesThread } from './lines-messages';
import type { PersonPropertiesLookup } from './person-properties';

/**
 * A standard run's rows as JSONLines chunks, in the run's order, read from the server and encoded
 * on a thread of its own (lines-thread.ts): this thread only looks up the persons a page names and
 * hands the bytes on. The thread runs ahead by `aheadPages` unacknowledged pages at most, and ends
 * with the run (or when the caller stops early).
 */
export async function* encodedLines(setup: LinesSetup, persons: PersonPropertiesLookup, check: () => void): AsyncGenerator<EncodedChunk> {
  const thread = startTsWorker(new URL('./lines-thread.ts', import.meta.url), setup);
  const pages: Extract<FromLinesThread, { type: 'page' }>[] = [];
  let done = false;
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const post = (m: ToLinesThread) => thread.postMessage(m);
  const fail = (err: Error) => {
    failure ??= err;
    notify();
  };
  thread.on('message', (m: FromLinesThread) => {
    if (m.type === 'persons') {
      persons(m.ids).then((found) => post({ type: 'persons', properties: m.ids.map((id) => found.get(id) ?? null) }), fail);
      return;
    }
    if (m.type === 'page') pages.push(m);
    else if (m.type === 'done') done = true;
    else failure ??= new Error(`export reader failed: ${m.message}`);
    notify();
  });
  // Errors crossing the thread boundary may arrive without their message.
  thread.on('error', (err: Error & { code?: string }) => fail(new Error(`export reader failed: ${err.message || err.code || String(err)}`)));
  thread.on('exit', (code) => fail(new Error(`export reader exited with code ${code}`)));
  try {
    for (;;) {
      const page = pages.shift();
      if (page) {
        for (let i = 0; i < page.ends.length; i++) yield { bytes: page.bytes.subarray(i === 0 ? 0 : page.ends[i - 1], page.ends[i]), records: page.counts[i] };
        post({ type: 'ack' });
        check();
      } else if (done) return;
      else if (failure) throw failure;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    await thread.terminate();
  }
}
