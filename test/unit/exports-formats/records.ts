import { Writable } from 'node:stream';
import type { ExportRecord } from '../../../src/exports/destinations/destination';

const BASE = Date.UTC(2024, 0, 15, 10, 0, 0);

/** Deterministic records; every 5th has person data, every 7th an elements chain. */
export function makeRecords(count: number, options: { start?: number; teamId?: number; event?: (i: number) => string } = {}): ExportRecord[] {
  const start = options.start ?? 0;
  const out: ExportRecord[] = [];
  for (let n = 0; n < count; n++) {
    const i = start + n;
    const withPerson = i % 5 === 0;
    out.push({
      uuid: `0190f0e0-0000-7000-8000-${String(i).padStart(12, '0')}`,
      event: options.event ? options.event(i) : i % 3 === 0 ? 'signed_up' : '$pageview',
      properties: { $current_url: `https://example.com/p/${i}`, n: i, nested: { ok: true, list: [1, 'two'] }, $ip: '10.0.0.1' },
      distinct_id: `user-${i % 17}`,
      team_id: options.teamId ?? 1,
      timestamp: new Date(BASE + i * 1000).toISOString(),
      created_at: new Date(BASE + i * 1000 + 500).toISOString(),
      person_id: withPerson ? `0190f0e0-0000-7000-9000-${String(i).padStart(12, '0')}` : null,
      person_properties: withPerson ? { email: `u${i}@example.com` } : null,
      set: withPerson ? { plan: 'pro' } : null,
      set_once: withPerson ? { first_seen: 'x' } : null,
      elements_chain: i % 7 === 0 ? 'button:text="Go"nth-child="1"' : null,
      ip: '10.0.0.1',
      site_url: null,
    });
  }
  return out;
}

export async function* inBatches(records: ExportRecord[], size: number): AsyncGenerator<ExportRecord[]> {
  for (let i = 0; i < records.length; i += size) yield records.slice(i, i + size);
}

/** A sink that keeps everything written to it. */
export function memorySink(): { sink: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

/** The JSONLines view of a record, as the exports write it. */
export function exportedJson(r: ExportRecord): Record<string, unknown> {
  return {
    uuid: r.uuid,
    event: r.event,
    properties: r.properties,
    distinct_id: r.distinct_id,
    team_id: r.team_id,
    timestamp: r.timestamp,
    created_at: r.created_at,
    person_id: r.person_id,
    person_properties: r.person_properties,
    set: r.set,
    set_once: r.set_once,
    elements_chain: r.elements_chain,
  };
}
