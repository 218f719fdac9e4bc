import { constants, createGzip } from 'node:zlib';

import { beforeAll, describe, expect, it } from 'vitest';

import { decodeBody, IngestError } from '../../../src/ingest';
import { MB, request } from './helpers';

/** 1 GiB of zeros, gzipped by streaming 1 MiB chunks: never holds the gigabyte in memory. */
async function gzipBomb(totalMb: number): Promise<Buffer> {
  const gzip = createGzip({ level: 6, strategy: constants.Z_RLE });
  const parts: Buffer[] = [];
  gzip.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const zeros = Buffer.alloc(MB);
  for (let i = 0; i < totalMb; i += 1) {
    if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await ended;
  return Buffer.concat(parts);
}

describe('gzip bomb', () => {
  let bomb: Buffer;

  beforeAll(async () => {
    bomb = await gzipBomb(1024);
  });

  it.each([
    ['declared with Content-Encoding', { contentEncoding: 'gzip', contentType: 'application/json' }],
    ['undeclared (magic bytes)', { contentType: 'text/plain' }],
  ])('is refused with 413 at the limit when %s', async (_name, headers) => {
    expect(bomb.length).toBeLessThan(2 * MB);
    const memoryBefore = process.memoryUsage().arrayBuffers;
    const started = performance.now();

    let caught: unknown;
    try {
      // A large body is inflated off the event loop: the refusal comes as a rejected promise.
      await decodeBody(request({ body: bomb, ...headers, maxDecompressedBytes: 20 * MB }));
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(IngestError);
    expect(caught).toMatchObject({ status: 413, type: 'client_error', code: 'request_too_large' });
    expect(performance.now() - started).toBeLessThan(3_000);
    // Inflating the whole gigabyte would show here; the limit is 20 MB.
    expect(process.memoryUsage().arrayBuffers - memoryBefore).toBeLessThan(200 * MB);
  });
});
