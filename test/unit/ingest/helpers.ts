import { gzipSync } from 'node:zlib';

import { compressToBase64 } from 'lz-string';

import type { DecodeBodyInput, NormalizeContext } from '../../../src/ingest';

export const MB = 1024 * 1024;
export const NOW = new Date('2024-05-01T12:00:00.000Z');
/** The uuid `normalizeContext` mints for an event that has none. */
export const MINTED = '01890a5d-ac96-774b-bcce-b302099a8057';
/** A request's normalisation context: at NOW, from one address, minting MINTED. */
export const normalizeContext = (overrides: Partial<NormalizeContext> = {}): NormalizeContext => ({
  now: NOW,
  ip: '203.0.113.9',
  sentAt: undefined,
  historicalMigration: false,
  newUuid: () => MINTED,
  ...overrides,
});

/** A request as the route would hand it over, with a generous default limit. */
export const request = (overrides: Partial<DecodeBodyInput> & Pick<DecodeBodyInput, 'body'>): DecodeBodyInput => ({
  query: {},
  maxDecompressedBytes: 20 * MB,
  ...overrides,
});

/** posthog-node 5: gzip, `Content-Type: application/json`, `Content-Encoding: gzip`. */
export const posthogNodeRequest = (payload: unknown): DecodeBodyInput =>
  request({
    body: gzipSync(JSON.stringify(payload)),
    contentType: 'application/json',
    contentEncoding: 'gzip',
  });

/** posthog-js gzip-js: raw gzip bytes, text/plain, the hint only in the query. */
export const posthogJsGzipRequest = (payload: unknown): DecodeBodyInput =>
  request({
    body: gzipSync(JSON.stringify(payload)),
    contentType: 'text/plain',
    query: { compression: 'gzip-js', ver: '1.200.0', _: String(NOW.getTime()) },
  });

/** posthog-js lz64: `data=<urlencoded lz-string base64>` form body, hint in the query. */
export const posthogJsLz64Request = (payload: unknown): DecodeBodyInput =>
  request({
    body: Buffer.from(`data=${encodeURIComponent(compressToBase64(JSON.stringify(payload)))}`),
    contentType: 'application/x-www-form-urlencoded',
    query: { compression: 'lz64' },
  });

/** Older posthog-js: `data=<base64 of UTF-8 JSON>` form body. */
export const base64FormRequest = (payload: unknown, hint?: string): DecodeBodyInput =>
  request({
    body: Buffer.from(`data=${encodeURIComponent(base64Json(payload))}${hint === undefined ? '' : `&compression=${hint}`}`),
    contentType: 'application/x-www-form-urlencoded',
  });

export const base64Json = (payload: unknown): string => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');

export const event = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  event: 'signed up',
  distinct_id: 'user-1',
  properties: { plan: 'pro' },
  ...overrides,
});
