// Ingestion throughput: N concurrent clients POST gzipped 1000-event /batch/ bodies of posthog-node
// style events to a server in a child process. Prints accepted events/s, request latency p50/p99,
// end-to-end events/s (until the analytics table holds every event), and the raw SQLite insert rate
// of the same rows into the same table as the ceiling, measured in the same run.
// A warm-up of WARMUP requests (other events, not counted) runs first and is folded before timing:
// the figures are a running service's, not a cold start's (JIT, statement caches, page cache).
//   npm run bench -- ingest [requests=200] [clients=8]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { INGESTION_TABLES } from '../../projections/ingestion/schema';
import { sqliteTableDdl } from '../../src/adapters/sqlite/read-models';
import { MODEL_BACKSTOP_CHECKPOINT_PAGES } from '../../src/app/open-runtime';
import { openSqlite } from '../../src/store/sqlite/open';
import { benchBatches } from './_ingest-events';
import { experimentNodeFlags, npmStartArgs } from './_node-args';
import { report, timed } from './_report';

const REQUESTS = Number(process.argv[2] ?? 200);
const CLIENTS = Number(process.argv[3] ?? 8);
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

// Started as `npm start` starts it (its node flags: a larger young generation, since every request
// allocates a few MB that die with it), plus the experiment flags (CPU profiles: one per thread).
const server = spawn(process.execPath, [...experimentNodeFlags(), ...npmStartArgs()], {
  env: { ...process.env, DATA_DIR: join(dir, 'data'), PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve) => {
  let out = '';
  server.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    const m = /listening at (http:\/\/[^"\s]+)/.exec(out);
    if (m) resolve(m[1]);
  });
});
const token = JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')).project_api_key as string;
const bodies = batches.map((b) => gzipSync(JSON.stringify({ api_key: token, batch: b, sent_at: new Date().toISOString() })));
const health = async () => (await (await fetch(`${url}/_health`)).json()) as { log_head: number; projections: Record<string, number> };
const post = async (body: Buffer) => {
  const res = await fetch(`${url}/batch/`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};
// A request is a few log records, not one per event: folded once the fold reaches the log's head.
const folded = async () => {
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
server.kill('SIGTERM');

latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
const accepted = total / acceptedSeconds;
const e2e = total / e2eSeconds;
report(`ingest: ${REQUESTS} x ${PER_REQUEST}-event gzipped /batch/ (~${avgBytes} B/event), ${CLIENTS} clients, after ${WARMUP} warm-up requests`, [
  { measure: 'raw SQLite insert of the same rows (ceiling)', 'events/s': Math.round(rawRate) },
  { measure: 'accepted (answered {"status":1})', 'events/s': Math.round(accepted), 'ratio to raw': accepted / rawRate, seconds: acceptedSeconds },
  { measure: 'end-to-end (analytics table holds all)', 'events/s': Math.round(e2e), 'ratio to raw': e2e / rawRate, seconds: e2eSeconds },
  { measure: 'request latency p50 (ms)', 'events/s': Math.round(pct(50)) },
  { measure: 'request latency p99 (ms)', 'events/s': Math.round(pct(99)) },
]);
console.log(`\naccepted ${Math.round(accepted)}/s (target >= 50,000): ${accepted >= 50_000 ? 'MET' : 'NOT MET'}`);
console.log(`end-to-end ${Math.round(e2e)}/s (target >= 25,000): ${e2e >= 25_000 ? 'MET' : 'NOT MET'}`);
await new Promise((r) => server.once('exit', r));
const models = openSqlite(join(dir, 'data', 'readmodels.sqlite'), { readonly: true });
const stored = (models.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
models.close();
if (stored !== total + WARMUP * PER_REQUEST) throw new Error(`the analytics table holds ${stored} events, expected ${total + WARMUP * PER_REQUEST}`);
rmSync(dir, { recursive: true, force: true });
