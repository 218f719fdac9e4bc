import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Writes one chunk and, if the stream asks for backpressure, waits for 'drain' — or for the
 * pipeline to fail, so a dead sink surfaces as a rejection instead of a hang.
 */
export async function feed(input: Writable, chunk: string | Uint8Array, pipelineDone: Promise<void>): Promise<void> {
  if (input.write(chunk)) return;
  await Promise.race([once(input, 'drain'), pipelineDone]);
}
