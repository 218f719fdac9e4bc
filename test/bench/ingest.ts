// Ingestion throughput: N concurrent clients POST gzipped 1000-event /batch/ bodies of posthog-node
// style events to a server in a child process. Prints accepted events/s, request latency p50/p99,
// end-to-end events/s (until the analytics table holds every event), and the raw SQLite insert rate
// of the same rows into the same table as the ceiling, measured in the same run.
// A warm-up of WARMUP requests (other events, not counted) runs first and is folded before timing:
// the figures are a running service's, not a cold start's (JIT, statement caches, page cache).
// With `--store postgres`, the same workload then runs against a service on fresh PostgreSQL schemas
// (log and read models), and one table gives both stores' figures side by side.
// With `--transport nats`, the SQLite service also runs with NATS_URL (the local server, a stream of
// its own): capture publishes to JetStream and the ingest role appends; end-to-end then waits for
// the consumers' lag to reach zero too; then on PostgreSQL (shared read models) with one and with
// two capture processes (the second api-only) taking requests in turn. All sit in one table.
//   npm run bench -- ingest [requests=200] [clients=8] [--store postgres] [--transport nats]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { INGESTION_TABLES } from '../../projections/ingestion/schema';
import { sqliteTableDdl } from '../../src/adapters/sqlite/read-models';
import { MODEL_BACKSTOP_CHECKPOINT_PAGES } from '../../src/app/open-runtime';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { benchBatches } from './_ingest-events';
import { startBuiltService } from './_built-service';
import { postgresService } from './_postgres-service';
import { report, timed } from './_report';
import { storeArgs } from './_store-arg';

const transportAt = process.argv.indexOf('--transport');
const withNats = transportAt >= 0 && process.argv[transportAt + 1] === 'nats';
if (transportAt >= 0 && !withNats) throw new Error(`--transport ${process.argv[transportAt + 1] ?? ''}: the only transport to add is nats`);
// Without --transport every positional argument stays (an index of -1 + 1 would drop the first).
const { withPostgres, args } = storeArgs(process.argv.slice(2).filter((_, i, a) => a.indexOf('--transport') < 0 || (i !== a.indexOf('--transport') && i !== a.indexOf('--transport') + 1)));
const REQUESTS = Number(args[0] ?? 200);
const CLIENTS = Number(args[1] ?? 8);
const PER_REQUEST = 1000;
const WARMUP = 20;
const total = REQUESTS * PER_REQUEST;
const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));

console.log(`building ${REQUESTS} bodies of ${PER_REQUEST} events...`);
const batches = benchBatches(REQUESTS, PER_REQUEST);
const warmupBatches = benchBatches(WARMUP, PER_REQUEST, REQUESTS * PER_REQUEST);
const avgBytes = Math.round(batches.slice(0, 3).flat().reduce((s, e) => s + JSON.stringify(e).length, 0) / (3 * PER_REQUEST));

// Ceiling: the same events inserted into the same analytics table (same indexes, same connection
// settings as the fold's, whose WAL a checkpointer thread copies back), bare statements.
const rawRate = (() => {
  const db = openSqlite(join(dir, 'raw.sqlite'), { autoCheckpointPages: MODEL_BACKSTOP_CHECKPOINT_PAGES });
  for (const table of INGESTION_TABLES) for (const statement of sqliteTableDdl(table)) db.exec(statement);
  const insert = db.prepare(
    `INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties,
       elements_chain, group_0, group_1, group_2, group_3, group_4, historical_migration)
     VALUES (?, 1, ?, ?, ?, ?, ?, ?, '', NULL, NULL, NULL, NULL, NULL, 0)`,
  );
  const rows = batches.map((b) => b.map((e) => [e.uuid, e.event, e.distinct_id, randomUUID(), e.timestamp, e.timestamp, JSON.stringify(e.properties)] as const));
  const tx = db.transaction((batch: (typeof rows)[number]) => {
    for (const r of batch) insert.run(...r);
  });
  const { seconds } = timed(() => rows.forEach((b) => tx.immediate(b)));
  db.close();
  return total / seconds;
})();

interface Measured {
  accepted: number;
  acceptedSeconds: number;
  e2e: number;
  e2eSeconds: number;
  p50: number;
  p99: number;
}

/**
 * Starts the service (environment `env`), warms it up, times the workload until the analytics
 * table holds it, and stops the service. `projectToken` is read once the service listens.
 */
/**
 * The per-project ingestion limits raised out of the way: at their defaults (100,000 events/s, a
 * burst of one second's worth) they capped what this bench measures, and a request past the burst
 * answered 429 and ended the run.
 */
const UNLIMITED = { INGEST_EVENTS_PER_SECOND: '1000000000', INGEST_BYTES_PER_MINUTE: String(1024 ** 4) };

async function measure(serviceEnv: Record<string, string>, projectToken: () => string, captureProcesses = 1): Promise<Measured> {
  const env = { ...UNLIMITED, ...serviceEnv };
  const { server, url, exited } = await startBuiltService(env);
  const token = projectToken();
  // More capture processes: api-only processes on the same DATA_DIR and stream, taking the
  // requests in turn; the first process keeps the ingest and projections roles.
  const captures = [{ server, url, exited }];
  for (let i = 1; i < captureProcesses; i++) captures.push(await startBuiltService({ ...env, ROLES: 'api' }));
  const bodies = batches.map((b) => gzipSync(JSON.stringify({ api_key: token, batch: b, sent_at: new Date().toISOString() })));
  const health = async () =>
    (await (await fetch(`${url}/_health`)).json()) as {
      log_head: number;
      projections: Record<string, number>;
      ingest_transport: { consumers?: Record<string, { pending: number; ack_pending: number }> };
    };
  // Through NATS, the log holds a request once the ingest role has appended it: no lag left.
  const drained = async () => {
    for (;;) {
      const consumers = (await health()).ingest_transport.consumers ?? {};
      if (Object.values(consumers).every((c) => c.pending + c.ack_pending === 0)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  let turn = 0;
  const post = async (body: Buffer) => {
    const target = captures[turn++ % captures.length].url;
    const res = await fetch(`${target}/batch/`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  // A request is a few log records, not one per event: folded once the fold reaches the log's head.
  const folded = async () => {
    await drained();
    const head = (await health()).log_head;
    while ((await health()).projections.ingestion < head) await new Promise((r) => setTimeout(r, 20));
  };

  for (const batch of warmupBatches) await post(gzipSync(JSON.stringify({ api_key: token, batch, sent_at: new Date().toISOString() })));
  await folded();

  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const t = performance.now();
        await post(body);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const acceptedSeconds = (performance.now() - start) / 1000;
  await folded();
  const e2eSeconds = (performance.now() - start) / 1000;
  for (const c of captures) c.server.kill('SIGTERM');
  await Promise.all(captures.map((c) => c.exited));

  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { accepted: total / acceptedSeconds, acceptedSeconds, e2e: total / e2eSeconds, e2eSeconds, p50: pct(50), p99: pct(99) };
}

const expected = total + WARMUP * PER_REQUEST;
const sqlite = await measure({ DATA_DIR: join(dir, 'data') }, () => JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')).project_api_key as string);
const models = openSqlite(join(dir, 'data', 'readmodels.sqlite'), { readonly: true });
const stored = (models.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
models.close();

let nats: Measured | null = null;
let natsPg: Measured | null = null;
let natsPg2: Measured | null = null;
let natsStored = 0;
if (withNats) {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const natsLayout = () => {
    const id = randomUUID().slice(0, 8);
    return { NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', NATS_STREAM: `BENCH_${id}`, NATS_SUBJECT_PREFIX: `bench${id}.ingest` };
  };
  const dropStream = async (stream: string) => {
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
    await nc.close();
  };
  const natsEnv = natsLayout();
  nats = await measure({ ...natsEnv, DATA_DIR: join(dir, 'nats-data') }, () => JSON.parse(readFileSync(join(dir, 'nats-data', 'credentials.json'), 'utf8')).project_api_key as string);
  const natsModels = openSqlite(join(dir, 'nats-data', 'readmodels.sqlite'), { readonly: true });
  natsStored = (natsModels.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  natsModels.close();
  await dropStream(natsEnv.NATS_STREAM);
  // A second capture process needs read models it can share (an api-only process folds nothing):
  // one and two capture processes on PostgreSQL, the first process holding the ingest and
  // projections roles, the second api-only, requests sent to them in turn.
  for (const processes of [1, 2]) {
    const service = await postgresService(`bench_nats${processes}`, join(dir, `pg-nats-boot-${processes}`));
    const layout = natsLayout();
    try {
      const m = await measure({ ...service.env, ...layout, DATA_DIR: join(dir, `pg-nats-${processes}`) }, () => service.credentials.project_api_key, processes);
      const n = await service.storedEvents();
      if (n !== expected) throw new Error(`through NATS on PostgreSQL (${processes} capture processes) the events table holds ${n} events, expected ${expected}`);
      if (processes === 1) natsPg = m;
      else natsPg2 = m;
    } finally {
      await service.drop();
      await dropStream(layout.NATS_STREAM);
    }
  }
}

let postgres: Measured | null = null;
let postgresStored = 0;
if (withPostgres) {
  const service = await postgresService('bench_ingest', join(dir, 'pg-bootstrap'));
  try {
    postgres = await measure({ ...service.env, DATA_DIR: join(dir, 'pg-data') }, () => service.credentials.project_api_key);
    postgresStored = await service.storedEvents();
  } finally {
    await service.drop();
  }
}

// One store: the columns as they always were; both: each figure column once per store.
const stores = [{ label: 'SQLite', m: sqlite }, ...(nats ? [{ label: 'SQLite via NATS', m: nats }] : []), ...(natsPg ? [{ label: 'PostgreSQL via NATS, 1 capture process', m: natsPg }] : []), ...(natsPg2 ? [{ label: 'PostgreSQL via NATS, 2 capture processes', m: natsPg2 }] : []), ...(postgres ? [{ label: 'PostgreSQL', m: postgres }] : [])];
const cells = (of: typeof stores, figures: (m: Measured) => Record<string, number>) =>
  Object.fromEntries(of.flatMap(({ label, m }) => Object.entries(figures(m)).map(([k, v]) => [stores.length > 1 ? `${label} ${k}` : k, v])));
report(`ingest: ${REQUESTS} x ${PER_REQUEST}-event gzipped /batch/ (~${avgBytes} B/event), ${CLIENTS} clients, after ${WARMUP} warm-up requests${nats ? ', direct and through NATS' : ''}${postgres ? ', SQLite and PostgreSQL stores' : ''}`, [
  { measure: 'raw SQLite insert of the same rows (ceiling)', ...cells(stores.slice(0, 1), () => ({ 'events/s': Math.round(rawRate) })) },
  { measure: 'accepted (answered {"status":1})', ...cells(stores, (m) => ({ 'events/s': Math.round(m.accepted), 'ratio to raw': m.accepted / rawRate, seconds: m.acceptedSeconds })) },
  { measure: 'end-to-end (analytics table holds all)', ...cells(stores, (m) => ({ 'events/s': Math.round(m.e2e), 'ratio to raw': m.e2e / rawRate, seconds: m.e2eSeconds })) },
  { measure: 'request latency p50 (ms)', ...cells(stores, (m) => ({ 'events/s': Math.round(m.p50) })) },
  { measure: 'request latency p99 (ms)', ...cells(stores, (m) => ({ 'events/s': Math.round(m.p99) })) },
]);
if (nats) {
  console.log(`\nthrough NATS: accepted ${(nats.accepted / sqlite.accepted).toFixed(2)}x direct (target >= 0.8): ${nats.accepted >= 0.8 * sqlite.accepted ? 'MET' : 'NOT MET'}`);
  console.log(`through NATS: end-to-end ${(nats.e2e / sqlite.e2e).toFixed(2)}x direct (target >= 0.8): ${nats.e2e >= 0.8 * sqlite.e2e ? 'MET' : 'NOT MET'}`);
  if (natsPg && natsPg2) console.log(`through NATS on PostgreSQL: two capture processes accepted ${(natsPg2.accepted / natsPg.accepted).toFixed(2)}x one, end-to-end ${(natsPg2.e2e / natsPg.e2e).toFixed(2)}x`);
}
if (postgres) console.log(`\nend-to-end on PostgreSQL ${Math.round(postgres.e2e)}/s (target >= 15,000): ${postgres.e2e >= 15_000 ? 'MET' : 'NOT MET'}`);
console.log(`${postgres ? '' : '\n'}accepted ${Math.round(sqlite.accepted)}/s (target >= 50,000): ${sqlite.accepted >= 50_000 ? 'MET' : 'NOT MET'}`);
console.log(`end-to-end ${Math.round(sqlite.e2e)}/s (target >= 25,000): ${sqlite.e2e >= 25_000 ? 'MET' : 'NOT MET'}`);
if (stored !== expected) throw new Error(`the analytics table holds ${stored} events, expected ${expected}`);
if (nats && natsStored !== expected) throw new Error(`through NATS the analytics table holds ${natsStored} events, expected ${expected}`);
if (postgres && postgresStored !== expected) throw new Error(`the PostgreSQL analytics table holds ${postgresStored} events, expected ${expected}`);
rmSync(dir, { recursive: true, force: true });
