import { gzipSync } from 'node:zlib';

import fc from 'fast-check';
import { compressToBase64 } from 'lz-string';
import { describe, expect, it } from 'vitest';

import { decodeBody, type DecodeBodyInput, extractBatch, normalizeEvent } from '../../../src/ingest';
import { base64FormRequest, NOW, posthogJsGzipRequest, posthogJsLz64Request, posthogNodeRequest, request } from './helpers';

/** Every way an SDK can put a payload on the wire. */
const ENCODINGS: Record<string, (payload: unknown) => DecodeBodyInput> = {
  'raw JSON': (p) => request({ body: Buffer.from(JSON.stringify(p)), contentType: 'application/json' }),
  'text/plain JSON': (p) => request({ body: Buffer.from(JSON.stringify(p)), contentType: 'text/plain' }),
  'posthog-node gzip': posthogNodeRequest,
  'posthog-js gzip-js': posthogJsGzipRequest,
  'undeclared gzip': (p) => request({ body: gzipSync(JSON.stringify(p)) }),
  'lz64 form': posthogJsLz64Request,
  'base64 form': (p) => base64FormRequest(p),
  'base64 form, declared': (p) => base64FormRequest(p, 'base64'),
  'JSON form': (p) =>
    request({ body: Buffer.from(`data=${encodeURIComponent(JSON.stringify(p))}`), contentType: 'application/x-www-form-urlencoded' }),
  'GET data=': (p) => request({ body: Buffer.alloc(0), query: { data: JSON.stringify(p) } }),
  'GET data= lz64': (p) => request({ body: Buffer.alloc(0), query: { data: compressToBase64(JSON.stringify(p)), compression: 'lz64' } }),
};

/** JSON values as they come back from JSON.parse (no -0, no undefined). */
const jsonValue = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const rawEvent = fc.record(
  {
    event: fc.string({ minLength: 1, maxLength: 20, unit: 'binary' }),
    distinct_id: fc.oneof(fc.string({ maxLength: 20, unit: 'binary' }), fc.integer()),
    properties: fc.dictionary(fc.string({ maxLength: 10 }), jsonValue, { maxKeys: 5 }),
    timestamp: fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  },
  { requiredKeys: ['event'] },
);

describe('any JSON event survives every encoding', () => {
  it.each(Object.entries(ENCODINGS))('%s', (_name, encode) => {
    fc.assert(
      fc.property(fc.array(rawEvent, { minLength: 1, maxLength: 3 }), (events) => {
        const payload = { api_key: 'phc_key', batch: events };
        const decoded = decodeBody(encode(payload));
        expect(decoded).toEqual(payload);
        const batch = extractBatch(decoded);
        expect(batch.apiKey).toBe('phc_key');
        for (const [i, raw] of batch.events.entries()) {
          const result = normalizeEvent(raw, { now: NOW, ip: undefined, sentAt: undefined, historicalMigration: false, newUuid: () => '00000000-0000-7000-8000-000000000000' });
          if (result.ok) {
            expect(result.event.event).toBe(events[i].event);
            expect(result.event.properties).toEqual(events[i].properties ?? {});
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
