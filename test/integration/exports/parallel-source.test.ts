// The export source's reader threads: JSONLines encoded by SQLite and worker threads must be the
// same bytes, in the same order, as the in-thread record path over the same SQLite file.
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INGESTION_TABLES } from '../../../projections/ingestion/schema';
import { sqliteTableDdl } from '../../../src/adapters/sqlite/read-models';
import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { jsonLine, jsonLines } from '../../../src/exports/formats';
import type { ExportRecord } from '../../../src/exports/destinations';
import { sqliteExportSource } from '../../../src/adapters/sqlite/export-source';
import { LINE_COLUMNS, lineFromRow } from '../../../src/adapters/sqlite/export-source/line-rows';
import { encodedInParallel, sliceCount, timeSlices } from '../../../src/adapters/sqlite/export-source/parallel-lines';
import { readerPool } from '../../../src/adapters/sqlite/export-source/reader-pool';
import { recordFromRow } from '../../../src/exports/worker/records';
import { sourceQuery } from '../../../src/adapters/sqlite/export-source/source-query';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';

const HOUR = '2024-01-15T10:00:00.000Z';
const HOUR_END = '2024-01-15T11:00:00.000Z';
const T0 = Date.parse(HOUR);

function exportRow(config: Record<string, unknown> = {}): BatchExportRow {
  return {
    id: 'e', seq: 1, project_id: 1, name: 'x', model: 'events', destination_type: 'File', destination_config: config,
    interval: 'hour', paused: false, created_at: HOUR, created_by: null, last_updated_at: HOUR, last_paused_at: null,
    start_at: null, end_at: null, hogql_query: null, schema: null, deleted: false, deleted_at: null,
  };
}

function runRow(backfill: boolean): RunRow {
  return {
    id: 'r', seq: 1, batch_export_id: 'e', project_id: 1, backfill_id: backfill ? 'b' : null, status: 'Running',
    records_completed: null, records_total_count: null, bytes_exported: null, latest_error: null,
    data_interval_start: HOUR, data_interval_end: HOUR_END, scheduled_at: HOUR_END, created_at: HOUR_END,
    finished_at: null, last_updated_at: HOUR_END, attempt: 1, retry_at: null, lease_until: null,
  };
}

function openReadModels(dir: string): SqliteDatabase {
  const db = openSqlite(join(dir, 'readmodels.db'));
  for (const table of INGESTION_TABLES) for (const statement of sqliteTableDdl(table)) db.exec(statement);
  return db;
}

const insertSql = `INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, historical_migration)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`;

/**
 * `count` events over the hour in awkward shapes: runs of equal timestamps (slice and page
 * bounds fall inside them), text needing escapes and multi-byte UTF-8, $set in every form, people
 * with and without a person row, another project's events, and events outside the hour.
 */
function fill(db: SqliteDatabase, count: number): void {
  const insert = db.prepare(insertSql);
  const person = db.prepare('INSERT INTO persons (uuid, project_id, properties, created_at, is_identified, version, seq_position, seq_index) VALUES (?, 1, ?, ?, 1, 1, ?, 0)');
  db.transaction(() => {
    for (let p = 0; p < 40; p++) person.run(`p-${p}`, JSON.stringify({ email: `u${p}@example.com`, name: p % 3 ? 'Zoë "Z"' : 'plain' }), HOUR, p);
    for (let i = 0; i < count; i++) {
      const at = new Date(T0 + Math.floor(i / 7) * Math.floor(3_600_000 / (count / 7))).toISOString();
      const properties: Record<string, unknown> = { n: i, url: `https://example.com/${i}?q="x"\\`, emoji: i % 11 ? 'a' : '😀 ü \u0007' };
      if (i % 5 === 0) properties.$set = { plan: 'pro' };
      if (i % 10 === 0) properties.$set_once = i % 20 ? ['not', 'an object'] : { first: i };
      const personId = i % 4 === 0 ? null : `p-${i % 50}`;
      insert.run(`uuid-${i}`, 1, i % 9 ? '$pageview' : 'sign "up"\n', `user-${i % 13}\t`, personId, at, at, JSON.stringify(properties), i % 6 ? '' : 'a:nth-child="1"');
    }
    insert.run('other-project', 2, 'x', 'd', null, HOUR, HOUR, '{}', '');
    insert.run('before', 1, 'x', 'd', null, '2024-01-15T09:59:59.999Z', '2024-01-15T09:59:59.999Z', '{}', '');
    insert.run('at-end', 1, 'x', 'd', null, HOUR_END, HOUR_END, '{}', '');
  })();
}

async function collectRecords(batches: AsyncIterable<ExportRecord[]>): Promise<ExportRecord[]> {
  const out: ExportRecord[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

describe('export source: JSONLines from reader threads', () => {
  const dir = tempDir('parallel-source-');
  const db = openReadModels(dir);
  fill(db, 5_000);
  const path = db.name;

  for (const backfill of [false, true]) {
    it(`gives the record path's bytes, rows and order (${backfill ? 'backfill: event time' : 'scheduled: ingestion time'})`, async () => {
      const source = sqliteExportSource(path, { parallelMinRows: 0, threads: 2, slices: 7 });
      const expected = await source(exportRow(), runRow(backfill));
      const records = await collectRecords(expected.batches(333, () => {}));
      await expected.close();
      expect(records).toHaveLength(5_000);

      const rows = await source(exportRow(), runRow(backfill));
      const chunks = rows.encoded!('JSONLines', 250, () => {});
      expect(chunks).not.toBeNull();
      const parts: Buffer[] = [];
      let count = 0;
      for await (const chunk of chunks!) {
        parts.push(Buffer.from(chunk.bytes));
        count += chunk.records;
        expect(chunk.bytes.length).toBeGreaterThan(0);
      }
      await rows.close();
      expect(count).toBe(5_000);
      expect(Buffer.concat(parts).toString('utf8')).toBe(jsonLines(records));
    });
  }

  it('gives the same bytes with the default slicing: many slices of a few pages each', async () => {
    // 40-row pages: 5,000 rows make 32 slices of ~4 pages, bounds falling inside runs of equal times.
    expect(sliceCount(5_000, 40)).toBe(32);
    const source = sqliteExportSource(path, { parallelMinRows: 0, threads: 2 });
    const records = await collectRecords((await source(exportRow(), runRow(false))).batches(333, () => {}));
    let text = '';
    for await (const chunk of (await source(exportRow(), runRow(false))).encoded!('JSONLines', 40, () => {})!) text += Buffer.from(chunk.bytes).toString();
    expect(text).toBe(jsonLines(records));
  });

  it('honours include_events / exclude_events like the record path', async () => {
    const source = sqliteExportSource(path, { parallelMinRows: 0, threads: 2, slices: 3 });
    const exp = exportRow({ include_events: ['sign "up"\n', '$pageview'], exclude_events: ['$pageview'] });
    const records = await collectRecords((await source(exp, runRow(false))).batches(100, () => {}));
    let text = '';
    for await (const chunk of (await source(exp, runRow(false))).encoded!('JSONLines', 250, () => {})!) text += Buffer.from(chunk.bytes).toString();
    expect(records.length).toBe(Math.ceil(5_000 / 9));
    expect(text).toBe(jsonLines(records));
  });

  it('stays in-thread for small runs and for hogql_query exports', async () => {
    const source = sqliteExportSource(path, { parallelMinRows: 10_000 });
    expect((await source(exportRow(), runRow(false))).encoded!('JSONLines', 250, () => {})).toBeNull();
    const hogql = { ...exportRow(), hogql_query: 'SELECT event AS e FROM events' };
    expect((await sqliteExportSource(path, { parallelMinRows: 0 })(hogql, runRow(false))).encoded!('JSONLines', 250, () => {})).toBeNull();
  });

  it('stops its readers when the run is abandoned between chunks', async () => {
    const source = sqliteExportSource(path, { parallelMinRows: 0, threads: 2, slices: 5 });
    let seen = 0;
    const chunks = (await source(exportRow(), runRow(false))).encoded!('JSONLines', 250, () => {
      if (++seen === 3) throw new Error('cancelled');
    })!;
    await expect(collectBytes(chunks)).rejects.toThrow('cancelled');
  });

  it('keeps its reader threads for the next run, and discards those of an abandoned run', async () => {
    const source = sqliteExportSource(path, { parallelMinRows: 0, threads: 2, slices: 5 });
    const run = async (check: () => void = () => {}) => collectBytes((await source(exportRow(), runRow(false))).encoded!('JSONLines', 250, check)!);
    const bytes = await run();
    // A run takes the two oldest idle readers and puts them back at the end: no thread is started.
    const idle = readerPool.idleThreadIds();
    expect(idle.length).toBeGreaterThanOrEqual(2);
    expect(await run()).toBe(bytes);
    expect(readerPool.idleThreadIds()).toEqual([...idle.slice(2), ...idle.slice(0, 2)]);
    // An abandoned run's readers may still be reading: they are terminated, not put back.
    const before = readerPool.idleThreadIds();
    let seen = 0;
    await expect(run(() => {
      if (++seen === 3) throw new Error('cancelled');
    })).rejects.toThrow('cancelled');
    expect(readerPool.idleThreadIds()).toEqual(before.slice(2));
    expect(await run()).toBe(bytes);
  });

  it('fails the run with the reader error when a reader cannot read', async () => {
    const query = sourceQuery(exportRow(), { projectId: 1, start: HOUR, end: HOUR_END, isBackfill: false });
    if (query.kind !== 'pages') throw new Error('expected a paged query');
    const chunks = encodedInParallel({ path: join(dir, 'missing', 'nothing.db'), query, end: HOUR_END, pageRows: 100, rows: 1000, threads: 1, check: () => {} });
    await expect(collectBytes(chunks)).rejects.toThrow(/unable to open|export reader/);
  });
});

async function collectBytes(chunks: AsyncIterable<{ bytes: Uint8Array }>): Promise<number> {
  let n = 0;
  for await (const chunk of chunks) n += chunk.bytes.length;
  return n;
}

describe('sliceCount', () => {
  it('aims at ~4 pages a slice, at least one, at most 4096', () => {
    expect(sliceCount(1_000_000, 1000)).toBe(250);
    expect(sliceCount(10, 1000)).toBe(1);
    expect(sliceCount(0, 1000)).toBe(1);
    expect(sliceCount(1e9, 100)).toBe(4096);
  });
});

describe('timeSlices', () => {
  it('covers the interval exactly, in order, keeping its bounds as given', () => {
    const slices = timeSlices(HOUR, HOUR_END, 7);
    expect(slices).toHaveLength(7);
    expect(slices[0][0]).toBe(HOUR);
    expect(slices[6][1]).toBe(HOUR_END);
    for (let i = 1; i < slices.length; i++) expect(slices[i][0]).toBe(slices[i - 1][1]);
  });

  it('drops empty slices of a very short interval', () => {
    const slices = timeSlices(HOUR, '2024-01-15T10:00:00.003Z', 32);
    expect(slices.every(([a, b]) => a < b)).toBe(true);
    expect(slices[slices.length - 1][1]).toBe('2024-01-15T10:00:00.003Z');
  });
});

describe('lineFromRow (fields JSON-encoded by SQLite)', () => {
  const dir = tempDir('line-rows-');
  const db = openReadModels(dir);
  db.prepare(`INSERT INTO persons (uuid, project_id, properties, created_at, is_identified, version, seq_position, seq_index) VALUES ('p', 1, '{"a":"é\\n"}', ?, 1, 1, 0, 0)`).run(HOUR);
  const insert = db.prepare(insertSql);
  const standard = db.prepare(`SELECT e.uuid, e.event, e.properties, e.distinct_id, e.project_id, e.timestamp, e.received_at, e.person_id, e.elements_chain FROM events e WHERE uuid = ?`).raw(true);
  const lines = db.prepare(`SELECT ${LINE_COLUMNS}, e.received_at, e.uuid FROM events e WHERE uuid = ?`).raw(true);
  const personProps = (id: string | null) => (id === 'p' ? '{"a":"é\\n"}' : null);
  let n = 0;

  it('is byte for byte jsonLine(recordFromRow(...)) for any stored text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'binary' }),
        fc.string(),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue())),
        fc.constantFrom(null, 'p', 'unknown'),
        (event, distinctId, chain, props, set, personId) => {
          const uuid = `u-${n++}`;
          const properties = set === null ? props : { ...props, $set: set, $set_once: set };
          insert.run(uuid, 1, event, distinctId, personId, HOUR, HOUR, JSON.stringify(properties), chain);
          const expected = jsonLine(recordFromRow(standard.get(uuid) as unknown[], personProps));
          expect(lineFromRow(lines.get(uuid) as unknown[], personProps)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
