import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportRecord } from '../../src/exports/destinations';
import { rowsPayload } from '../../src/exports/destinations/postgres/postgres-rows';
import { jsonLine } from '../../src/exports/formats';
import { recordFromRow } from '../../src/exports/worker/records';
import { makeRecords } from './exports-formats/records';

/** The analytics store's form of a record: the JSON fields as JSON text (what the worker reads). */
function stored(r: ExportRecord): ExportRecord {
  const properties = { ...r.properties, ...(r.set ? { $set: r.set } : {}), ...(r.set_once ? { $set_once: r.set_once } : {}) };
  const row = [r.uuid, r.event, JSON.stringify(properties), r.distinct_id, r.team_id, r.timestamp, r.created_at, r.person_id, r.elements_chain ?? ''];
  const person = r.person_properties ? JSON.stringify(r.person_properties) : null;
  return recordFromRow(row, () => person);
}
const plain = (r: ExportRecord): ExportRecord => ({
  ...r,
  properties: { ...r.properties, ...(r.set ? { $set: r.set } : {}), ...(r.set_once ? { $set_once: r.set_once } : {}) },
  ip: undefined,
});

describe('records carrying their JSON as text (the worker’s fast path)', () => {
  it('serialise to exactly the same JSONLines and Postgres payloads as parsed records', () => {
    const records = makeRecords(60);
    for (const r of records) {
      expect(jsonLine(stored(r))).toBe(jsonLine(plain(r)));
    }
    expect(rowsPayload(records.map(stored))).toBe(rowsPayload(records.map(plain)));
  });

  it('escape any string exactly as JSON.stringify does (quotes, controls, lone surrogates, emoji)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string(), (event, distinct, chain) => {
        const [base] = makeRecords(1);
        const r = { ...base, event, distinct_id: distinct, elements_chain: chain === '' ? null : chain, set: null, set_once: null };
        const line = jsonLine(stored(r));
        expect(line).toBe(jsonLine(plain(r)));
        expect(JSON.parse(line).event).toBe(JSON.parse(JSON.stringify(event)));
      }),
      { numRuns: 300 },
    );
  });

  it('parse the objects lazily for destinations that read them', () => {
    const [r] = makeRecords(1);
    const s = stored(r);
    expect(s.raw?.set).toBe(JSON.stringify(r.set));
    expect(s.properties).toEqual(plain(r).properties);
    expect(s.person_properties).toEqual(r.person_properties);
    expect(s.set_once).toEqual(r.set_once);
  });
});
