import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchExportRow, RunRow } from '../../../projections/exports';
import { ingestionProjection } from '../../../projections/ingestion';
import type { ExportRecord } from '../../../src/exports/destinations';
import { jsonLines } from '../../../src/exports/formats/json-line';
import type { ExportSource } from '../../../src/exports/worker/export-source';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { EventLog } from '../../../src/store/event-log';
import type { ReadModelStore } from '../../../src/store/read-models';
import { ingestEvents, type TimedEvent } from '../experiments/helpers';
import { startTestServer, type TestServer } from '../../support/server';

/** A store the contract folds the history into, and the export source over it. */
export interface EngineUnderTest {
  store: ReadModelStore;
  source: ExportSource;
  /**
   * Called once `store` has folded the log to its head: an engine whose export source reads a store
   * fed from the log after the read models (ClickHouse) folds it here.
   */
  caughtUp?(log: EventLog): Promise<void>;
  /** The source offers the contract's standard runs as JSONLines already encoded (RunRows.encoded). */
  encodes?: boolean;
  close(): Promise<void>;
}

const HOUR = '2024-01-15T10:00:00.000Z';
const HOUR_END = '2024-01-15T11:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(HOUR) + ms).toISOString();
/** uuids whose order is not the ingestion order, so ties on time are broken by uuid, not by arrival. */
const uuid = (i: number) => `0190a000-0000-4000-8000-${((i * 7919) % 100_003).toString(16).padStart(12, '0')}`;

interface Sent extends TimedEvent {
  uuid: string;
  batch: number;
}

/**
 * The history, in three /batch requests (each shares one received_at): runs of equal timestamps,
 * an event at each interval bound, persons with properties, personless events, $set / $set_once.
 */
function history(): Sent[] {
  const out: Sent[] = [];
  for (let i = 0; i < 45; i++) {
    const properties: Record<string, unknown> = { n: i, $browser: i % 3 ? 'Chrome' : 'Firefox', obj: { a: [i, 'ü "q"'] }, flag: i % 2 === 0 };
    if (i % 5 === 0) properties.$set = { email: `u${i % 7}@example.com`, plan: 'pro' };
    if (i % 10 === 0) properties.$set_once = { first: i };
    // Personless events of ids no person holds: no person properties (a NULL the hogql join carries).
    if (i % 11 === 3) properties.$process_person_profile = false;
    const timestamp = i === 0 ? '2024-01-15T09:59:59.999Z' : i === 1 ? HOUR_END : at(Math.floor(i / 4) * 60_000);
    const event = i % 9 === 0 ? 'signup' : i % 4 === 0 ? 'skip' : '$pageview';
    const distinct_id = i % 11 === 3 ? `personless-${i}` : `user-${i % 7}`;
    out.push({ uuid: uuid(i), batch: Math.floor(i / 15), event, distinct_id, timestamp, properties });
  }
  return out;
}

function exportRow(overrides: Partial<BatchExportRow> = {}): BatchExportRow {
  return {
    id: 'e', seq: 1, project_id: 0, name: 'x', model: 'events', destination_type: 'File', destination_config: {},
    interval: 'hour', paused: false, created_at: HOUR, created_by: null, last_updated_at: HOUR, last_paused_at: null,
    start_at: null, end_at: null, hogql_query: null, schema: null, deleted: false, deleted_at: null, ...overrides,
  };
}

function runRow(start: string, end: string, backfill: boolean): RunRow {
  return {
    id: 'r', seq: 1, batch_export_id: 'e', project_id: 0, backfill_id: backfill ? 'b' : null, status: 'Running',
    records_completed: null, records_total_count: null, bytes_exported: null, latest_error: null,
    data_interval_start: start, data_interval_end: end, scheduled_at: end, created_at: end,
    finished_at: null, last_updated_at: end, attempt: 1, retry_at: null, lease_until: null,
  };
}

/** A record as plain data (the adapters' records parse their JSON lazily). */
const plain = (r: ExportRecord) => ({
  uuid: r.uuid, event: r.event, distinct_id: r.distinct_id, team_id: r.team_id, timestamp: r.timestamp, created_at: r.created_at,
  person_id: r.person_id, elements_chain: r.elements_chain, properties: r.properties, person_properties: r.person_properties, set: r.set, set_once: r.set_once,
});

async function read(source: ExportSource, exp: BatchExportRow, run: RunRow, batchSize: number) {
  const rows = await source(exp, run);
  try {
    const records: ReturnType<typeof plain>[] = [];
    const sizes: number[] = [];
    for await (const batch of rows.batches(batchSize, () => {})) {
      sizes.push(batch.length);
      records.push(...batch.map(plain));
    }
    return { total: rows.total, records, sizes };
  } finally {
    await rows.close();
  }
}

/**
 * What every export source must do, over a history ingested through the real server and folded
 * into the engine's store by the real runner. With `reference`, every answer must also equal the
 * reference engine's, record for record.
 */
export function exportSourceContract(name: string, open: () => Promise<EngineUnderTest>, reference?: () => Promise<EngineUnderTest>) {
  describe(`export source contract: ${name}`, () => {
    let s: TestServer;
    const engines: { engine: EngineUnderTest; runner: ProjectionRunner }[] = [];
    const sent = history();
    let exp: (overrides?: Partial<BatchExportRow>) => BatchExportRow;
    let scheduled: RunRow;
    const backfill = runRow(HOUR, HOUR_END, true);

    const fold = async (engine: EngineUnderTest) => {
      const runner = new ProjectionRunner(s.runtime.log, { readmodels: engine.store }, [ingestionProjection]);
      await runner.ready;
      await runner.catchUp();
      expect(runner.failures()).toEqual({});
      await engine.caughtUp?.(s.runtime.log);
      engines.push({ engine, runner });
    };
    /** The answer of the engine under test, checked equal to the reference's when there is one. */
    const answer = async (exportRow: BatchExportRow, run: RunRow, batchSize: number) => {
      const [tested, ...others] = await Promise.all(engines.map(({ engine }) => read(engine.source, exportRow, run, batchSize)));
      for (const other of others) expect(tested).toEqual(other);
      return tested;
    };

    beforeAll(async () => {
      s = await startTestServer();
      const projectId = s.credentials.project_id;
      exp = (overrides = {}) => exportRow({ project_id: projectId, ...overrides });
      const from = new Date(Date.now() - 3_600_000).toISOString();
      for (let b = 0; b < 3; b++) {
        await ingestEvents(s, sent.filter((e) => e.batch === b).map(({ batch: _batch, ...e }) => e));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      scheduled = { ...runRow(from, new Date(Date.now() + 3_600_000).toISOString(), false), project_id: projectId };
      await fold(await open());
      if (reference) await fold(await reference());
    }, 60_000);

    afterAll(async () => {
      for (const { engine } of engines) await engine.close();
      await s?.close();
    });

    it('reads a scheduled window by ingestion time, then uuid, in pages of any size', async () => {
      const expected = await answer(exp(), scheduled, 1000);
      expect(expected.total).toBe(sent.length);
      expect(expected.records).toHaveLength(sent.length);
      const keys = expected.records.map((r) => [r.created_at, r.uuid].join(' '));
      expect(keys).toEqual([...keys].sort());
      expect(new Set(expected.records.map((r) => r.uuid))).toEqual(new Set(sent.map((e) => e.uuid)));
      // Equal ingestion times within a request: the uuid orders them, not arrival.
      expect(new Set(expected.records.map((r) => r.created_at)).size).toBeLessThan(sent.length);
      for (const size of [1, 2]) {
        const paged = await answer(exp(), scheduled, size);
        expect(paged.records).toEqual(expected.records);
        expect(paged.sizes.every((n) => n <= size)).toBe(true);
      }
    });

    it('reads a backfill window by event time, bounds [start, end)', async () => {
      const inHour = sent.filter((e) => e.timestamp! >= HOUR && e.timestamp! < HOUR_END);
      const order = inHour.map((e) => [e.timestamp, e.uuid].join(' ')).sort();
      for (const size of [1, 2, 1000]) {
        const got = await answer(exp(), { ...backfill, project_id: exp().project_id }, size);
        expect(got.total).toBe(inHour.length);
        expect(got.records.map((r) => [r.timestamp, r.uuid].join(' '))).toEqual(order);
      }
    });

    it('exports the stored fields, person properties and $set / $set_once', async () => {
      const { records } = await answer(exp(), { ...backfill, project_id: exp().project_id }, 7);
      const withSet = records.find((r) => r.uuid === uuid(5))!;
      expect(withSet.properties).toMatchObject({ n: 5, obj: { a: [5, 'ü "q"'] } });
      expect(withSet.set).toEqual({ email: 'u5@example.com', plan: 'pro' });
      expect(withSet.person_properties).toMatchObject({ email: 'u5@example.com', plan: 'pro' });
      expect(records.find((r) => r.uuid === uuid(10))!.set_once).toEqual({ first: 10 });
    });

    it('applies include_events and exclude_events', async () => {
      const run = { ...backfill, project_id: exp().project_id };
      const included = await answer(exp({ destination_config: { include_events: ['signup', 'skip'], exclude_events: ['skip'] } }), run, 2);
      expect(included.records.map((r) => r.event)).toEqual(included.records.map(() => 'signup'));
      expect(included.total).toBe(sent.filter((e) => e.event === 'signup' && e.timestamp! >= HOUR && e.timestamp! < HOUR_END).length);
      const excluded = await answer(exp({ destination_config: { exclude_events: ['$pageview'] } }), run, 1000);
      expect(excluded.records.some((r) => r.event === '$pageview')).toBe(false);
      expect(excluded.total).toBe(excluded.records.length);
      expect(excluded.total).toBeGreaterThan(included.total);
    });

    it('runs a hogql_query export', async () => {
      const hogql_query =
        `SELECT event, properties.$browser AS browser, properties.n AS n, toInt(properties.n) AS i, toFloat(properties.n) AS f,` +
        ` properties.obj AS obj, properties.flag AS flag, person_properties.email AS email, upper(event) AS up, length(event) AS len,` +
        ` properties.n > 10 AS big, toString(properties.n) AS s, set AS set_field` +
        ` FROM events WHERE properties.n > 3 AND event != 'skip' AND properties.$browser ILIKE 'chrome%'`;
      const run = { ...backfill, project_id: exp().project_id };
      const got = await answer(exp({ hogql_query }), run, 2);
      const expected = sent.filter((e) => e.timestamp! >= HOUR && e.timestamp! < HOUR_END && (e.properties!.n as number) > 3 && e.event !== 'skip' && e.properties!.$browser === 'Chrome');
      expect(got.total).toBe(expected.length);
      expect(got.records.map((r) => r.uuid)).toEqual(expected.map((e) => [e.timestamp, e.uuid].join(' ')).sort().map((k) => k.split(' ')[1]));
      // A personless event (i = 14) reads its person properties as NULL.
      expect(got.records.find((r) => r.uuid === uuid(14))?.properties).toMatchObject({ email: null });
      const five = got.records.find((r) => r.uuid === uuid(5))!;
      expect(five.properties).toEqual({
        event: '$pageview', browser: 'Chrome', n: 5, i: 5, f: 5, obj: '{"a":[5,"ü \\"q\\""]}', flag: 0, email: 'u5@example.com',
        up: '$PAGEVIEW', len: 9, big: 0, s: '5', set_field: { email: 'u5@example.com', plan: 'pro' },
      });
    });

    it('encodes JSONLines, where it offers to, as the lines of its own batches, byte for byte', async () => {
      const { engine } = engines[0];
      const project = exp().project_id;
      const runs: [BatchExportRow, RunRow][] = [
        [exp(), scheduled],
        [exp(), { ...backfill, project_id: project }],
        [exp({ destination_config: { include_events: ['signup', '$pageview'], exclude_events: ['signup'] } }), { ...backfill, project_id: project }],
      ];
      for (const [exportRow, run] of runs) {
        const rows = await engine.source(exportRow, run);
        let lines = '';
        try {
          for await (const batch of rows.batches(4, () => {})) lines += jsonLines(batch);
        } finally {
          await rows.close();
        }
        const again = await engine.source(exportRow, run);
        try {
          const chunks = again.encoded?.('JSONLines', 4, () => {}) ?? null;
          expect(chunks !== null).toBe(engine.encodes === true);
          if (chunks === null) continue;
          let bytes = '';
          let records = 0;
          for await (const chunk of chunks) {
            bytes += Buffer.from(chunk.bytes).toString('utf8');
            records += chunk.records;
          }
          expect(bytes).toBe(lines);
          expect(records).toBe(again.total);
          expect(records).toBeGreaterThan(0);
        } finally {
          await again.close();
        }
      }
      // A run stopped between chunks (check throws) stops there, and the next run reads whole.
      if (engine.encodes) {
        const rows = await engine.source(exp(), scheduled);
        let seen = 0;
        const stopped = (async () => {
          for await (const chunk of rows.encoded!('JSONLines', 4, () => {
            if (seen > 0) throw new Error('run stopped');
          })!)
            seen += chunk.records;
        })();
        await expect(stopped).rejects.toThrow('run stopped');
        expect(seen).toBeGreaterThan(0);
        expect(seen).toBeLessThan(rows.total);
        await rows.close();
      }
    });

    it('reads one snapshot: rows ingested after the run opened are not seen', async () => {
      const runs = await Promise.all(engines.map(({ engine }) => engine.source(exp(), scheduled)));
      try {
        const before = runs.map((r) => r.total);
        const iterators = runs.map((r) => r.batches(1, () => {})[Symbol.asyncIterator]());
        for (const it of iterators) expect((await it.next()).done).toBe(false);
        await ingestEvents(s, [{ event: 'late', distinct_id: 'late', properties: {} }]);
        for (const { engine, runner } of engines) {
          await runner.catchUp();
          await engine.caughtUp?.(s.runtime.log);
        }
        for (const [i, it] of iterators.entries()) {
          let n = 1;
          for (let next = await it.next(); !next.done; next = await it.next()) {
            n += next.value.length;
            expect(next.value.some((r) => r.event === 'late')).toBe(false);
          }
          expect(n).toBe(before[i]);
        }
      } finally {
        for (const r of runs) await r.close();
      }
      const after = await answer(exp(), scheduled, 1000);
      expect(after.total).toBe(sent.length + 1);
      expect(after.records.some((r) => r.event === 'late')).toBe(true);
    });
  });
}
