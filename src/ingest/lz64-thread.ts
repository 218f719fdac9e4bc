// Worker-thread entry: inflates large lz64 bodies so that lz-string's JS decoder (0.4–1 s of CPU
// for a 25 KB bomb reaching 64 MiB) never runs on the event loop. One job at a time; the JSON text
// goes back as UTF-8 bytes in a transferred buffer (no copy), refusals as a reason.
import { parentPort } from 'node:worker_threads';
import { niceThisThread } from '../threads/priority';
import { inflateLz64Text } from './lz64-bounded';
import type { FromLz64Thread, ToLz64Thread } from './lz64-messages';

const port = parentPort!;
// Below the event loop's priority: on a machine with few cores, two threads inflating bombs would
// otherwise take the CPU from the loop they were moved off to protect.
niceThisThread(10);

port.on('message', ({ id, text, maxBytes }: ToLz64Thread) => {
  let reply: FromLz64Thread;
  try {
    const outcome = inflateLz64Text(text, maxBytes);
    if (!outcome.ok) reply = { id, ok: false, reason: outcome.reason };
    else {
      const bytes = new TextEncoder().encode(outcome.text);
      port.postMessage({ id, ok: true, bytes } satisfies FromLz64Thread, [bytes.buffer]);
      return;
    }
  } catch (error) {
    reply = { id, ok: false, reason: 'failed', detail: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
