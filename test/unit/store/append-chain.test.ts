import { describe, expect, it } from 'vitest';
import { appendChain, chainHash, CHAIN_START, type SharedContent } from '../../../src/store/hash-chain';

// appendChain builds the canonical text its own way (fast paths for hex hashes and UUID-like ids);
// each link must be the hash chainHash gives over the reference encoding, whatever the ids and types.
const shared: SharedContent = { streamId: 'ingest-"7"\\', recordedAt: '2026-11-29T09:00:00.000Z', projectId: 7, actorText: '{"type":"user","id":3}', causationId: 'c"1', correlationId: null };
const records = [
  { type: 'EventCaptured', schemaVersion: 1, data: '{"a":1}', eventId: '0190a0a0-0000-7000-8000-000000000000' },
  { type: 'EventCaptured', schemaVersion: 1, data: '{"b":"é\\u0000"}', eventId: 'id with "quotes" and \\ and é' },
  { type: 'Odd"Type', schemaVersion: 2, data: '[]', eventId: '' },
  { type: 'Odd"Type', schemaVersion: 3, data: '{"big":"' + 'x'.repeat(100) + '"}', eventId: 'ABC-def-123' },
  { type: 'EventsCaptured', schemaVersion: 1, data: '{"events":[{"n":"ü"}]}', eventId: 'line\nbreak' },
];

describe('appendChain', () => {
  for (const prev of [CHAIN_START, 'f'.repeat(64), 'not "hex"']) {
    it(`links each record as chainHash does (prev ${JSON.stringify(prev).slice(0, 12)})`, () => {
      const link = appendChain(prev, shared);
      let expected = prev;
      records.forEach((r, i) => {
        expected = chainHash(expected, { ...shared, revision: i, type: r.type, schemaVersion: r.schemaVersion, dataText: r.data, eventId: r.eventId });
        // Large records come as their UTF-8 bytes: the same hash.
        const data = i % 2 ? Buffer.from(r.data, 'utf8') : r.data;
        expect(link(i, r.type, r.schemaVersion, data, r.eventId), `record ${i}`).toBe(expected);
      });
    });
  }
});
