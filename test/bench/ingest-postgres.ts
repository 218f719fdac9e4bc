// Ingestion on PostgreSQL, part by part, in one process on fresh schemas: the ingest pipeline
// appending gzipped 1000-event /batch/ bodies (the ingest bench's events) to the PostgreSQL log from
// CLIENTS concurrent callers (accepted events/s); the ingestion projection folding them with the
// real runner into PostgreSQL read models, and the same fold into SQLite read models (folded
// events/s); then end to end: appending while a live runner folds into PostgreSQL, timed until the
// read models hold every event. Each part runs after WARMUP requests (appended and folded, not
// counted), so the figures are a running service's.
//   npm run bench -- ingest-postgres [requests=200] [clients=8]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createIngestionProjection } from '../../projections/ingestion';
import { PostgresEventLog } from '../../src/adapters/postgres/event-log';
import { PostgresReadModelStore } from '../../src/adapters/postgres/read-models';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-models';
import { IngestPipeline } from '../../src/ingest/pipeline';
import { ProjectionRunner } from '../../src/runtime/projection-runner';
import { hintedAppendNotifications } from '../../src/store/append-notifications';
import type { ReadModelStore } from '../../src/store/read-models';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { reachablePgUser } from '../support/postgres';
import { pgSchemas } from '../support/postgres-schema';
import { benchBatches } from './_ingest-events';
import { report, timedAsync } from './_report';

const REQUESTS = Number(process.argv[2] ?? 200);
const CLIENTS = Number(process.argv[3] ?? 8);
const PER_REQUEST = 1000;
const WARMUP = 20;
const total = REQUESTS * PER_REQUEST;

const user = await reachablePgUser();
if (!user) throw new Error('PostgreSQL at 127.0.0.1:5432 is unreachable');
const schemas = pgSchemas(user, 'bench_ingest_pg');
const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-pg-'));

console.log(`building ${REQUESTS} bodies of ${PER_REQUEST} events...`);
const gzipped = (batches: ReturnType<typeof benchBatches>) =>
  batches.map((batch) => gzipSync(JSON.stringify({ api_key: 'phc_bench', batch, sent_at: new Date().toISOString() })));
const bodies = gzipped(benchBatches(REQUESTS, PER_REQUEST));
const warmups = gzipped(benchBatches(WARMUP, PER_REQUEST, REQUESTS * PER_REQUEST));

const openLog = () => PostgresEventLog.open({ connection: schemas.connection, schema: schemas.fresh() });
const openPostgresModels = () => PostgresReadModelStore.open({ connection: schemas.connection, schema: schemas.fresh(), maxConnections: 4 });
const runnerOn = (log: PostgresEventLog, store: ReadModelStore, live = false) =>
  new ProjectionRunner(log, { readmodels: store }, [createIngestionProjection()], live ? { notifications: hintedAppendNotifications(log) } : {});

/** Every body through the pipeline, CLIENTS requests in flight at a time, as the HTTP layer calls it. */
async function ingestAll(log: PostgresEventLog, list: Buffer[]): Promise<void> {
  const pipeline = new IngestPipeline({ log, projectIdForToken: () => 1 });
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < list.length) {
        const body = list[next++];
        await pipeline.ingest({ body, contentType: 'application/json', contentEncoding: 'gzip', query: {}, ip: '127.0.0.1', maxDecompressedBytes: 64 << 20 });
      }
    }),
  );
}

/** Folds the warm-up part untimed, then times the fold of the rest of the log. */
async function timedFold(log: PostgresEventLog, store: ReadModelStore, warmHead: number, head: number): Promise<number> {
  const runner = runnerOn(log, store);
  await runner.catchUp({ toPosition: warmHead });
  const { seconds } = await timedAsync(() => runner.catchUp({ toPosition: head }));
  if (Object.keys(runner.failures()).length || runner.quarantines().count) throw new Error(`fold failed: ${JSON.stringify(runner.failures())}`);
  return seconds;
}

async function countEvents(store: ReadModelStore): Promise<number> {
  return (await store.session.get<{ n: number }>('SELECT count(*) AS n FROM events'))!.n;
}

const rows: Record<string, string | number>[] = [];
const row = (measure: string, seconds: number) => rows.push({ measure, 'events/s': Math.round(total / seconds), seconds });
try {
  const log = await openLog();
  await ingestAll(log, warmups);
  const warmHead = await log.head();
  const appended = await timedAsync(() => ingestAll(log, bodies));
  row(`(a) accepted: pipeline → PostgreSQL log, ${CLIENTS} callers`, appended.seconds);
  const head = await log.head();

  const pgModels = await openPostgresModels();
  row('(b) folded: runner + ingestion projection → PostgreSQL read models', await timedFold(log, pgModels, warmHead, head));
  const pgCount = await countEvents(pgModels);
  await pgModels.close();

  const sqliteDb = openSqlite(join(dir, 'readmodels.sqlite'));
  const sqliteModels = new SqliteReadModelStore(sqliteDb);
  row('(c) folded: runner + ingestion projection → SQLite read models', await timedFold(log, sqliteModels, warmHead, head));
  const sqliteCount = await countEvents(sqliteModels);
  await sqliteModels.close();
  await log.close();
  const expected = total + WARMUP * PER_REQUEST;
  if (pgCount !== expected || sqliteCount !== expected) throw new Error(`events folded: PostgreSQL ${pgCount}, SQLite ${sqliteCount}, expected ${expected}`);

  // End to end: a live runner (woken by the log's notices) folds while the callers append.
  const liveLog = await openLog();
  const liveModels = await openPostgresModels();
  const live = runnerOn(liveLog, liveModels, true);
  await ingestAll(liveLog, warmups);
  await live.catchUp();
  live.start();
  let acceptedSeconds = 0;
  const e2e = await timedAsync(async () => {
    acceptedSeconds = (await timedAsync(() => ingestAll(liveLog, bodies))).seconds;
    await live.waitFor(await liveLog.head());
  });
  live.stop();
  row('(d) end-to-end: accepted and folded into PostgreSQL read models (one process)', e2e.seconds);
  rows[rows.length - 1]['of which accepting (s)'] = acceptedSeconds;
  if ((await countEvents(liveModels)) !== expected) throw new Error('the live fold missed events');
  await liveModels.close();
  await liveLog.close();
} finally {
  await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true });
}

report(`ingest-postgres: ${REQUESTS} x ${PER_REQUEST}-event gzipped /batch/ bodies, after ${WARMUP} warm-up requests`, rows);
const e2eRate = total / Number(rows[rows.length - 1].seconds);
console.log(`\nend-to-end on PostgreSQL ${Math.round(e2eRate)}/s (target >= 15,000): ${e2eRate >= 15_000 ? 'MET' : 'NOT MET'}`);
