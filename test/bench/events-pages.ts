// Following the events API's `next` links through N events on each analytics engine asked for
// (sqlite, a ClickHouse server at CLICKHOUSE_BENCH_URL / HOGQL_CLICKHOUSE_URL / 127.0.0.1:8123, chdb):
// the time of the pages at the start and at the end (target: the end within ±50% of the start), and
// for contrast one page read at the same depth by offset, as `next` carried before.
//   npm run bench -- events-pages [events=1000000] [limit=1000] [engines=sqlite,clickhouse,chdb]
// The events go straight into the analytics table (the embedded one, or the ClickHouse engine's
// through its sink; through the log they would take minutes); pages are read through the real
// routes (fastify's inject: no sockets, so the query and serialisation are what is timed).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../src/access';
import { openRuntime } from '../../src/app';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/http';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { chdbAvailable } from '../../src/adapters/clickhouse/chdb/module';
import { dropAnalyticsDatabase } from '../../src/app/open-analytics';
import type { AnalyticsEventRow } from '../../src/store/analytics';
import type { FoldedAnalyticsChoice } from '../../src/config';
import { report, timedAsync } from './_report';
import { fileURLToPath } from 'node:url';
import { rerunWithStartFlags } from './_node-args';

// The service's code runs in this process: with the node flags `npm start` gives it.
const rerun = rerunWithStartFlags(fileURLToPath(import.meta.url));
if (rerun !== null) process.exit(rerun);

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const LIMIT = Number(process.argv[3] ?? 1000);
const ENGINES = (process.argv[4] ?? 'sqlite,clickhouse,chdb').split(',');
const CLICKHOUSE_URL = process.env.CLICKHOUSE_BENCH_URL ?? process.env.HOGQL_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const SAMPLE = 10;
const START = Date.parse('2024-01-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'bench-events-pages-'));
const dataDir = join(dir, 'data');
let runtime = openRuntime({ dataDir });
await runtime.runner.catchUp();
runtime.runner.start();
const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
const projectId = credentials.project_id;
const names = ['$pageview', '$autocapture', 'signed up', 'purchase'];
/** The i-th event: three a second, so pages end inside runs of equal times, where the uuid breaks the tie. */
const eventAt = (i: number) => {
  const at = new Date(START + Math.floor(i / 3) * 1000).toISOString();
  return { uuid: randomUUID(), event: names[i % names.length], distinctId: `user-${i % 20_000}`, at, properties: JSON.stringify({ $current_url: `https://example.com/${i % 97}`, $lib: 'posthog-node', plan: i % 3 ? 'pro' : 'free' }) };
};

console.log(`inserting ${EVENTS.toLocaleString()} events into the analytics table...`);
{
  const db = openSqlite(runtime.stores!.readmodels.name);
  const insert = db.prepare(
    `INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, historical_migration)
     VALUES (?, ?, ?, ?, NULL, ?, ?, ?, '', 0)`,
  );
  const tx = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const e = eventAt(i);
      insert.run(e.uuid, projectId, e.event, e.distinctId, e.at, e.at, e.properties);
    }
  });
  for (let i = 0; i < EVENTS; i += 10_000) tx(i, Math.min(EVENTS, i + 10_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** The pages as a client follows them, on the analytics engine the runtime has now. */
async function walk(engine: string): Promise<void> {
  const app = await buildApp(runtime, loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: false });
  try {
  await app.ready();
  const headers = { authorization: `Bearer ${credentials.personal_api_key}` };
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return res.json<{ next: string | null; results: { uuid: string }[] }>();
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  const firstUrl = `/api/projects/${projectId}/events/?limit=${LIMIT}`;
  const nextOf = (page: { next: string | null }) => page.next && new URL(page.next).pathname + new URL(page.next).search;
  // Warm-up, untimed: the first pages otherwise also time the routes' and queries' first compilations.
  for (let i = 0, u: string | null = firstUrl; i < 2 * SAMPLE && u; i++) u = nextOf(await get(u));

  // The whole list, page after page, as a client follows `next`; then the first and the last pages
  // again, alternately, so that the machine's load falls on both alike.
  const urls: string[] = [];
  let url: string | null = firstUrl;
  let listed = 0;
  const all = await timedAsync(async () => {
    while (url) {
      urls.push(url);
      const page = await get(url);
      listed += page.results.length;
      url = nextOf(page);
    }
  });
  if (listed !== EVENTS) throw new Error(`listed ${listed} of ${EVENTS}`);
  const firstTimes: number[] = [];
  const lastTimes: number[] = [];
  // A short list (a few pages) samples what it has: its first and last halves.
  const sample = Math.max(1, Math.min(SAMPLE, Math.floor(urls.length / 2)));
  const tail = urls.slice(-sample);
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < sample; i++) {
      firstTimes.push((await timedAsync(() => get(urls[i]))).seconds);
      lastTimes.push((await timedAsync(() => get(tail[i]))).seconds);
    }
  }
  const first = median(firstTimes);
  const last = median(lastTimes);
  const deep = Math.max(0, EVENTS - LIMIT);
  const offsetTimes: number[] = [];
  for (let i = 0; i < 3; i++) offsetTimes.push((await timedAsync(() => get(`/api/projects/${projectId}/events/?limit=${LIMIT}&offset=${deep}`))).seconds);

  report(`events API pages on ${engine} (${EVENTS.toLocaleString()} events, limit ${LIMIT}, ${new Date().toISOString()})`, [
    { pages: `first ${sample} (median of 3 rounds)`, 'ms/page': first * 1000 },
    { pages: `last ${sample} (median of 3 rounds)`, 'ms/page': last * 1000 },
    { pages: `offset=${deep.toLocaleString()} (median of 3)`, 'ms/page': median(offsetTimes) * 1000 },
    { pages: `all ${urls.length.toLocaleString()}, in order`, 'ms/page': (all.seconds / urls.length) * 1000 },
  ]);
  const ratio = last / first;
  console.log(`\n${engine}: last/first: ${ratio.toFixed(2)} (target 0.5-1.5): ${ratio >= 0.5 && ratio <= 1.5 ? 'MET' : 'NOT MET'}`);
  } finally {
    await app.close();
  }
}

/** Whether the engine can run here (a missing server or package is said, not fatal). */
async function available(engine: string): Promise<boolean> {
  if (engine === 'sqlite') return true;
  if (engine === 'chdb') return chdbAvailable();
  if (engine === 'clickhouse') return fetch(`${CLICKHOUSE_URL}/?query=SELECT%201`).then((r) => r.ok, () => false);
  throw new Error(`unknown engine ${engine}: sqlite, clickhouse or chdb`);
}

for (const engine of ENGINES) {
  if (!(await available(engine))) {
    console.log(`${engine}: not available here, skipped`);
    continue;
  }
  if (engine === 'sqlite') {
    await walk(engine);
    continue;
  }
  // The same events through the ClickHouse engine's sink, then the same walk.
  await runtime.close();
  const database = `bench_pages_${Date.now()}`;
  const choice: FoldedAnalyticsChoice = engine === 'chdb' ? { kind: 'chdb', path: join(dir, 'analytics-chdb'), database } : { kind: 'clickhouse', url: CLICKHOUSE_URL, database };
  runtime = openRuntime({ dataDir, analytics: choice });
  try {
    await runtime.ready;
    const sink = runtime.analyticsFold!.store.sink;
    const filled = await timedAsync(async () => {
      for (let from = 0; from < EVENTS; from += 50_000) {
        const rows: AnalyticsEventRow[] = [];
        for (let i = from; i < Math.min(EVENTS, from + 50_000); i++) {
          const e = eventAt(i);
          rows.push({ uuid: e.uuid, projectId, event: e.event, distinctId: e.distinctId, personId: null, timestamp: e.at, receivedAt: e.at, propertiesJson: e.properties, elementsChain: '', groups: [null, null, null, null, null], historicalMigration: false });
        }
        await sink.append(rows, 1);
      }
    });
    console.log(`${engine}: ${EVENTS.toLocaleString()} events stored in ${filled.seconds.toFixed(1)} s`);
    await walk(engine);
  } finally {
    await runtime.close();
    await dropAnalyticsDatabase(choice);
    runtime = openRuntime({ dataDir });
  }
}
await runtime.close();
rmSync(dir, { recursive: true, force: true });
