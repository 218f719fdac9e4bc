// Worker-thread entry: the decoding work a large body needs, kept off the event loop. Four jobs:
// inflating gzip (zlib here rather than on libuv's pool: the pool hands the output back in chunks
// that the loop then joins in one long turn), inflating lz64 (lz-string's JS decoder: 0.4–1 s of
// CPU for a 25 KB bomb reaching 64 MiB), and parsing a large JSON body into slices of events
// (batch-slices.ts), and URL- and base64-decoding a large form body (form-body.ts). One job at a time; bytes go
// back in transferred buffers (no copy), refusals as reasons.
import { parentPort } from 'node:worker_threads';
import { niceThisThread } from '../threads/priority';
import { sliceBatch } from './batch-slices';
import { isIngestError } from './errors';
import { decodeForm } from './form-body';
import { gunzipBounded } from './gzip';
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
    if (message.job === 'gunzip') {
      const inflated = gunzipBounded(message.bytes, message.maxBytes);
      // Transferred whole: a view into a larger buffer is copied first (here, not on the loop).
      const bytes = inflated.byteOffset === 0 && inflated.byteLength === inflated.buffer.byteLength ? inflated : new Uint8Array(inflated);
      port.postMessage({ id, ok: true, bytes } satisfies FromDecodeThread, [bytes.buffer as ArrayBuffer]);
      return;
    }
    if (message.job === 'form') {
      const form = decodeForm(message.bytes, message.hints);
      const transfer = form.kind === 'json' && form.bytes.byteOffset === 0 && form.bytes.byteLength === form.bytes.buffer.byteLength ? [form.bytes.buffer as ArrayBuffer] : [];
      port.postMessage({ id, ok: true, form } satisfies FromDecodeThread, transfer);
      return;
    }
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
    if (isIngestError(error)) {
      port.postMessage({ id, ok: false, refusal: { status: error.status, type: error.type, code: error.code, detail: error.detail } } satisfies FromDecodeThread);
      return;
    }
    reply = { id, ok: false, reason: 'failed', detail: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
