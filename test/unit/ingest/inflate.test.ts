import { gzipSync } from 'node:zlib';
import { compressToBase64 } from 'lz-string';
import { describe, expect, it } from 'vitest';
import { decodeBody, IngestError } from '../../../src/ingest';
import { DecompressionGate } from '../../../src/ingest/decompression-gate';
import { INLINE_COMPRESSED_BYTES } from '../../../src/ingest/inflate';
import { IngestRateLimiter } from '../../../src/ingest/rate-limit';
import { event, MB, request } from './helpers';

describe('inline or off the event loop', () => {
  it('a small compressed body decodes in the same turn (no promise: /flags/ stays synchronous)', () => {
    const gz = request({ body: gzipSync(JSON.stringify([event()])), contentEncoding: 'gzip' });
    expect(decodeBody(gz)).not.toBeInstanceOf(Promise);
    const lz = request({ body: Buffer.from(`data=${encodeURIComponent(compressToBase64(JSON.stringify([event()])))}`), contentType: 'application/x-www-form-urlencoded', query: { compression: 'lz64' } });
    expect(decodeBody(lz)).not.toBeInstanceOf(Promise);
  });

  it('a large compressed body is inflated off the loop, to the same payload', async () => {
    // Random-ish text so the compressed form stays above the inline threshold.
    const batch = Array.from({ length: 3_000 }, (_, i) => event({ distinct_id: `user-${(i * 2654435761) % 1e9}` }));
    const body = gzipSync(JSON.stringify(batch));
    expect(body.length).toBeGreaterThan(INLINE_COMPRESSED_BYTES);
    const decoded = decodeBody(request({ body, contentEncoding: 'gzip' }));
    expect(decoded).toBeInstanceOf(Promise);
    expect(await decoded).toEqual(batch);

    const data = compressToBase64(JSON.stringify(batch));
    const lz = decodeBody(request({ body: Buffer.from(`data=${encodeURIComponent(data)}`), contentType: 'application/x-www-form-urlencoded', query: { compression: 'lz64' } }));
    expect(lz).toBeInstanceOf(Promise);
    expect(await lz).toEqual(batch);
  });

  it('a small body that inflates past the inline cap finishes off the loop, and the limit still holds', async () => {
    const body = gzipSync(Buffer.alloc(3 * MB, 0x20)); // 3 MiB of spaces from a few KB
    expect(body.length).toBeLessThanOrEqual(INLINE_COMPRESSED_BYTES);
    const within = decodeBody(request({ body, contentEncoding: 'gzip', maxDecompressedBytes: 4 * MB }));
    expect(within).toBeInstanceOf(Promise);
    await expect(within).rejects.toMatchObject({ code: 'no_data' });
    await expect(decodeBody(request({ body, contentEncoding: 'gzip', maxDecompressedBytes: 2 * MB }))).rejects.toMatchObject({ status: 413 });
  });
});

describe('DecompressionGate', () => {
  it('runs at most `limit` at once, queues up to `maxQueued`, and refuses the rest with 503', async () => {
    const gate = new DecompressionGate(2, 1);
    let running = 0;
    let peak = 0;
    const releases: (() => void)[] = [];
    const job = () =>
      gate.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
      });
    const jobs = [job(), job(), job()];
    const refused = job();
    await expect(refused).rejects.toBeInstanceOf(IngestError);
    await expect(refused).rejects.toMatchObject({ status: 503, code: 'decompression_busy', retryAfterSeconds: 1 });
    expect(gate.queued).toBe(1);
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(jobs);
    expect(peak).toBe(2);
  });
});

describe('IngestRateLimiter.refusesBeforeBody', () => {
  const limits = { eventsPerSecond: 2, bytesPerMinute: 6000, historicalEventsPerSecond: 1 };

  it('refuses only when no content could fit: live budgets spent AND the historical one', () => {
    const l = new IngestRateLimiter(limits);
    expect(l.refusesBeforeBody(1, 100, 0)).toEqual({ admitted: true });
    l.admit(1, { events: 2, bytes: 100, historical: false }, 0);
    // Live is spent, but the body might be a historical migration: not refused yet.
    expect(l.refusesBeforeBody(1, 100, 0).admitted).toBe(true);
    l.admit(1, { events: 1, bytes: 100, historical: true }, 0);
    expect(l.refusesBeforeBody(1, 100, 0)).toMatchObject({ admitted: false, limit: 'events_per_second' });
    // It counts nothing.
    expect(l.refusesBeforeBody(1, 100, 1_000).admitted).toBe(true);
    expect(l.admit(1, { events: 2, bytes: 100, historical: false }, 1_000)).toEqual({ admitted: true });
  });
});
