// Worker-thread entry: the decoding work a large body needs, kept off the event loop. Two jobs:
// inflating lz64 (lz-string's JS decoder: 0.4–1 s of CPU for a 25 KB bomb reaching 64 MiB), and
// parsing a large JSON body into slices of events (batch-slices.ts). One job at a time; bytes go
// back in transferred buffers (no copy), refusals as reasons.
import { parentPort } from 'node:worker_threads';
import { niceThisThread } from '../threads/priority';
import { sliceBatch } from './batch-slices';
import { inflateLz64Text } from './lz64-bounded';
import type { FromDecodeThread, ToDecodeThread } from './decode-messages';

const port = parentPort!;
// Below the event loop's priority: on a machine with few cores, two threads decoding bombs would
// otherwise take the CPU from the loop they were moved off to protect.
niceThisThread(10);

port.on('message', (message: ToDecodeThread) => {
  const { id } = message;
  let reply: FromDecodeThread;
  try {
    if (message.job === 'slice') {
      const sliced = sliceBatch(message.bytes);
      port.postMessage({ id, ok: true, sliced } satisfies FromDecodeThread, sliced.ok ? [sliced.batch.bytes.buffer as ArrayBuffer] : []);
      return;
    }
    const outcome = inflateLz64Text(message.text, message.maxBytes);
    if (!outcome.ok) reply = { id, ok: false, reason: outcome.reason };
    else {
      const bytes = new TextEncoder().encode(outcome.text);
      port.postMessage({ id, ok: true, bytes } satisfies FromDecodeThread, [bytes.buffer]);
      return;
    }
  } catch (error) {
    reply = { id, ok: false, reason: 'failed', detail: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
