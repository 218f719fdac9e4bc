// Batch-export throughput: N events in one hourly interval exported by the real worker (the same
// code path as `npm start`: run claimed, rows read from the analytics store, destination written,
// run finished) to File as JSONLines and as Parquet (zstd), and to the local PostgreSQL.
//   npm run bench -- export [rows=1000000] [cases=file-jsonl,file-parquet,postgres] [engines=sqlite] [history=0]
// history: that many more events of the same project in the 24 hours before the exported one, which
// the run must not read (a store that reads the whole project per page slows with them).
// engines: the analytics stores the exports read, in turn (issue 25): the embedded one (sqlite), a
// ClickHouse server (clickhouse: CLICKHOUSE_BENCH_URL, else HOGQL_CLICKHOUSE_URL, else
// http://127.0.0.1:8123) and chDB in-process (chdb: `bash infra/chdb.sh`). Each file's sha256 is
// printed: the same history must give the same files on every engine.
// The events are inserted straight into the analytics table (through the log they would take
// minutes to ingest; a ClickHouse engine gets the embedded table's rows through its sink); the
// export itself is what is timed. Target: File JSONLines >= 200,000 rows/s on every engine.
// JSONLines to File runs twice: first as a freshly started service does (its reader threads start),
// then as a running one does (the threads are kept between runs); the target is the running one's.
// The bench runs itself with the node flags `npm start` gives the service (its exports run in-process).
import { execSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { bootstrap } from '../../src/access';
import { openRuntime } from '../../src/app';
import { exportPolicy } from '../../src/exports';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { rerunWithStartFlags } from './_node-args';
import { report, timedAsync } from './_report';
import { reachablePgUser } from '../support/postgres';
import { CreateExportBody } from '../../src/http/schema/batch-exports';
import { chdbAvailable } from '../../src/adapters/clickhouse/chdb/module';
import { dropAnalyticsDatabase } from '../../src/app/open-analytics';
import type { FoldedAnalyticsChoice } from '../../src/config';
import type { AnalyticsEventRow, StoredEventColumns } from '../../src/store/analytics';

// The service's code runs in this process: with the node flags `npm start` gives it.
const rerun = rerunWithStartFlags(fileURLToPath(import.meta.url));
if (rerun !== null) process.exit(rerun);

const ROWS = Number(process.argv[2] ?? 1_000_000);
const CASES = (process.argv[3] ?? 'file-jsonl,file-parquet,postgres').split(',');
const ENGINES = (process.argv[4] ?? 'sqlite').split(',');
const HISTORY = Number(process.argv[5] ?? 0);
const CLICKHOUSE_URL = process.env.CLICKHOUSE_BENCH_URL ?? process.env.HOGQL_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const HOUR_START = Date.parse('2024-01-15T10:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'bench-export-'));
let now = HOUR_START - 60_000;
// Files go to `<dir>/<case>` and PostgreSQL is local: the export policy allows both.
const open = (analytics?: FoldedAnalyticsChoice) =>
  openRuntime({
    dataDir: join(dir, 'data'),
    now: () => new Date(now),
    exportPolicy: exportPolicy({ dataDir: join(dir, 'data'), fileRoot: dir, allowedHosts: '127.0.0.1' }),
    analytics,
  });
let runtime = open();
await runtime.runner.catchUp();
runtime.runner.start();
const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
const projectId = (await runtime.queries.access.projectByToken(credentials.project_api_key))!.id;

console.log(`inserting ${ROWS.toLocaleString()} events into the analytics table...`);
{
  const db = openSqlite(runtime.stores!.readmodels.name);
  const users = 20_000;
  const personIds = Array.from({ length: users }, () => randomUUID());
  const person = db.prepare('INSERT INTO persons (uuid, project_id, properties, created_at, is_identified, version, seq_position, seq_index) VALUES (?, ?, ?, ?, 1, 1, ?, 0)');
  db.transaction(() => personIds.forEach((id, u) => person.run(id, projectId, JSON.stringify({ email: `user${u}@example.com`, plan: u % 3 ? 'pro' : 'free' }), '2024-01-01T00:00:00.000Z', u)))();
  const insert = db.prepare(
    `INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, historical_migration)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', 0)`,
  );
  const names = ['$pageview', '$autocapture', 'signed up', 'purchase', '$feature_flag_called', 'clicked button'];
  const tx = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      // The exported hour's rows first, then the history's in the day before it.
      const at = new Date(i < ROWS ? HOUR_START + Math.floor((i / ROWS) * 3_599_000) : HOUR_START - 86_400_000 + Math.floor(((i - ROWS) / HISTORY) * 86_399_000)).toISOString();
      const properties = {
        $current_url: `https://app.example.com/projects/${i % 97}/dashboard?tab=${i % 5}`,
        $browser: 'Chrome',
        $os: 'Mac OS X',
        plan: i % 3 ? 'pro' : 'free',
        revenue: (i % 100) * 1.5,
        $lib: 'posthog-node',
        $lib_version: '5.11.0',
        $ip: '203.0.113.7',
        ...(i % 50 === 0 ? { $set: { plan: 'pro' } } : {}),
      };
      insert.run(randomUUID(), projectId, names[i % names.length], `user-${i % users}`, personIds[i % users], at, at, JSON.stringify(properties));
    }
  });
  for (let i = 0; i < ROWS + HISTORY; i += 10_000) tx(i, Math.min(ROWS + HISTORY, i + 10_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
// The inserts leave ~1 GB of dirty pages; flushed now, their write-back does not throttle the
// export's own file writes (which measured up to 2x slower while the kernel was still flushing).
execSync('sync');
// Likewise the insert loop's garbage: collected now, it is not swept during the first timed run
// (the reader threads' pages, transferred to this thread, set off collections of this heap).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;


const rows: Record<string, string | number>[] = [];
const actor = { type: 'system' as const };
const runs = CASES.flatMap((name) => (name === 'file-jsonl' ? [name, name] : [name]));

/** sha256 of a directory's files, in name order (the first 16 hex digits). */
const filesSha = (out: string) => {
  const hash = createHash('sha256');
  for (const f of readdirSync(out).sort()) hash.update(readFileSync(join(out, f)));
  return hash.digest('hex').slice(0, 16);
};

/** Every case, exported from the analytics store the runtime has now. */
async function exportCases(engine: string): Promise<void> {
  for (const [i, name] of runs.entries()) {
    const warm = name === 'file-jsonl' && runs.indexOf(name) !== i;
    now = HOUR_START;
    const out = join(dir, name);
    let destination: { type: string; config: Record<string, unknown> };
    let cleanup = async () => {};
    if (name === 'postgres') {
      const user = await reachablePgUser();
      if (!user) {
        console.log('postgres: no PostgreSQL at 127.0.0.1:5432/test, skipped');
        continue;
      }
      const schema = `bench_export_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ host: '127.0.0.1', port: 5432, user, database: 'test' });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      destination = { type: 'Postgres', config: { user, password: '', host: '127.0.0.1', port: 5432, database: 'test', schema } };
      cleanup = async () => {
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      };
    } else {
      const parquet = name === 'file-parquet';
      destination = { type: 'File', config: { path: out, file_format: parquet ? 'Parquet' : 'JSONLines', compression: parquet ? 'zstd' : null } };
    }
    const exp = await runtime.exports.service.create(projectId, CreateExportBody.parse({ name, destination, interval: 'hour' }), actor);
    now = HOUR_START + 3_600_000 + 1000;
    await runtime.exports.scheduler().tick();
    const worker = runtime.exports.worker({ settings: { maxAttempts: 1 } });
    collectGarbage();
    const { seconds } = await timedAsync(() => worker.drain());
    await runtime.runner.waitFor(await runtime.log.head());
    const run = (await runtime.exports.queries.runs.latest(exp.id, 1))[0];
    if (run.status !== 'Completed') throw new Error(`${name}: run ${run.status}: ${run.latest_error}`);
    const bytes = name === 'postgres' ? 0 : readdirSync(out).reduce((n, f) => n + statSync(join(out, f)).size, 0);
    rows.push({
      engine,
      destination: destination.type,
      format: name === 'postgres' ? '-' : String(destination.config.file_format),
      // Reader threads are the SQLite source's; the ClickHouse source reads on the main thread.
      run: name !== 'file-jsonl' ? '' : engine !== 'sqlite' ? (warm ? 'second' : 'first') : warm ? 'threads warm' : 'first (threads start)',
      records: run.records_completed ?? 0,
      seconds,
      'rows/s': Math.round((run.records_completed ?? 0) / seconds),
      MB: Math.round(bytes / 1e6),
      sha256: name === 'postgres' ? '-' : filesSha(out),
    });
    await runtime.exports.service.delete([projectId], exp.id, actor);
    await cleanup();
    rmSync(out, { recursive: true, force: true });
  }
}

/** Whether the engine can run here (a missing server or package is said, not fatal). */
async function available(engine: string): Promise<boolean> {
  if (engine === 'sqlite') return true;
  if (engine === 'chdb') return chdbAvailable();
  if (engine === 'clickhouse') return fetch(`${CLICKHOUSE_URL}/?query=SELECT%201`).then((r) => r.ok, () => false);
  throw new Error(`unknown engine ${engine}: sqlite, clickhouse or chdb`);
}

/** The embedded table's events, as the analytics fold hands them on, in chunks. */
function* embeddedEvents(chunk: number): Generator<AnalyticsEventRow[]> {
  const db = openSqlite(runtime.stores!.readmodels.name, { readonly: true });
  try {
    let batch: AnalyticsEventRow[] = [];
    for (const row of db.prepare('SELECT * FROM events ORDER BY rowid').iterate() as IterableIterator<StoredEventColumns>) {
      batch.push({
        uuid: row.uuid, projectId: row.project_id, event: row.event, distinctId: row.distinct_id, personId: row.person_id,
        timestamp: row.timestamp, receivedAt: row.received_at, propertiesJson: row.properties, elementsChain: row.elements_chain,
        groups: [row.group_0, row.group_1, row.group_2, row.group_3, row.group_4], historicalMigration: Number(row.historical_migration) === 1,
      });
      if (batch.length === chunk) yield batch.splice(0);
    }
    if (batch.length > 0) yield batch;
  } finally {
    db.close();
  }
}

for (const engine of ENGINES) {
  if (!(await available(engine))) {
    console.log(`${engine}: not available here, skipped`);
    continue;
  }
  if (engine === 'sqlite') {
    await exportCases(engine);
    continue;
  }
  // The same events through the ClickHouse engine's sink, then the same exports, read from there.
  await runtime.close();
  const database = `bench_export_${Date.now()}`;
  const choice: FoldedAnalyticsChoice = engine === 'chdb' ? { kind: 'chdb', path: join(dir, 'analytics-chdb'), database } : { kind: 'clickhouse', url: CLICKHOUSE_URL, database };
  runtime = open(choice);
  try {
    await runtime.ready;
    await runtime.runner.catchUp();
    runtime.runner.start();
    const sink = runtime.analyticsFold!.store.sink;
    const filled = await timedAsync(async () => {
      for (const batch of embeddedEvents(50_000)) await sink.append(batch, 1);
    });
    console.log(`${engine}: ${(ROWS + HISTORY).toLocaleString()} events stored in ${filled.seconds.toFixed(1)} s`);
    await exportCases(engine);
  } finally {
    await runtime.close();
    await dropAnalyticsDatabase(choice);
    runtime = open();
  }
}

report(`batch export (${ROWS.toLocaleString()} events of ${(ROWS + HISTORY).toLocaleString()}, ${new Date().toISOString()})`, rows);
// The target, per engine, on a running service's run (sqlite's reader threads warm; the others' second).
for (const engine of ENGINES) {
  const jsonl = rows.find((r) => r.engine === engine && r.destination === 'File' && r.format === 'JSONLines' && (r.run === 'threads warm' || r.run === 'second'));
  if (jsonl) console.log(`JSONLines to File, ${engine}: ${jsonl['rows/s'].toLocaleString()} rows/s (target >= 200,000): ${Number(jsonl['rows/s']) >= 200_000 ? 'MET' : 'NOT MET'}`);
}
for (const format of ['JSONLines', 'Parquet']) {
  const shas = new Set(rows.filter((r) => r.format === format).map((r) => r.sha256));
  if (shas.size > 0) console.log(`${format} files across engines: ${shas.size === 1 ? 'identical' : `DIFFERENT (${[...shas].join(', ')})`}`);
}
await runtime.close();
rmSync(dir, { recursive: true, force: true });
