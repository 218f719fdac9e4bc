// Following the events API's `next` links through N events on SQLite: the time of the pages at the
// start and at the end (target: the end within ±50% of the start), and for contrast one page read at
// the same depth by offset, as `next` carried before.
//   npm run bench -- events-pages [events=1000000] [limit=1000]
// The events go straight into the analytics table (through the log they would take minutes); pages
// are read through the real routes (fastify's inject: no sockets, so the query and serialisation are
// what is timed).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../src/access';
import { openRuntime } from '../../src/app';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/http';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { report, timedAsync } from './_report';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const LIMIT = Number(process.argv[3] ?? 1000);
const SAMPLE = 10;
const START = Date.parse('2024-01-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'bench-events-pages-'));
const dataDir = join(dir, 'data');
const runtime = openRuntime({ dataDir });
await runtime.runner.catchUp();
runtime.runner.start();
const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
const projectId = credentials.project_id;

console.log(`inserting ${EVENTS.toLocaleString()} events into the analytics table...`);
{
  const db = openSqlite(runtime.stores!.readmodels.name);
  const insert = db.prepare(
    `INSERT INTO events (uuid, project_id, event, distinct_id, person_id, timestamp, received_at, properties, elements_chain, historical_migration)
     VALUES (?, ?, ?, ?, NULL, ?, ?, ?, '', 0)`,
  );
  const names = ['$pageview', '$autocapture', 'signed up', 'purchase'];
  const tx = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      // Three events a second: pages end inside runs of equal times, where the uuid breaks the tie.
      const at = new Date(START + Math.floor(i / 3) * 1000).toISOString();
      insert.run(randomUUID(), projectId, names[i % names.length], `user-${i % 20_000}`, at, at, JSON.stringify({ $current_url: `https://example.com/${i % 97}`, $lib: 'posthog-node', plan: i % 3 ? 'pro' : 'free' }));
    }
  });
  for (let i = 0; i < EVENTS; i += 10_000) tx(i, Math.min(EVENTS, i + 10_000));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const app = await buildApp(runtime, loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: false });
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
const tail = urls.slice(-SAMPLE);
for (let round = 0; round < 3; round++) {
  for (let i = 0; i < SAMPLE; i++) {
    firstTimes.push((await timedAsync(() => get(urls[i]))).seconds);
    lastTimes.push((await timedAsync(() => get(tail[i]))).seconds);
  }
}
const first = median(firstTimes);
const last = median(lastTimes);
const deep = Math.max(0, EVENTS - LIMIT);
const offsetTimes: number[] = [];
for (let i = 0; i < 3; i++) offsetTimes.push((await timedAsync(() => get(`/api/projects/${projectId}/events/?limit=${LIMIT}&offset=${deep}`))).seconds);

report(`events API pages (${EVENTS.toLocaleString()} events, limit ${LIMIT}, ${new Date().toISOString()})`, [
  { pages: `first ${SAMPLE} (median of 3 rounds)`, 'ms/page': first * 1000 },
  { pages: `last ${SAMPLE} (median of 3 rounds)`, 'ms/page': last * 1000 },
  { pages: `offset=${deep.toLocaleString()} (median of 3)`, 'ms/page': median(offsetTimes) * 1000 },
  { pages: `all ${urls.length.toLocaleString()}, in order`, 'ms/page': (all.seconds / urls.length) * 1000 },
]);
const ratio = last / first;
console.log(`\nlast/first: ${ratio.toFixed(2)} (target 0.5-1.5): ${ratio >= 0.5 && ratio <= 1.5 ? 'MET' : 'NOT MET'}`);
await app.close();
await runtime.close();
rmSync(dir, { recursive: true, force: true });
