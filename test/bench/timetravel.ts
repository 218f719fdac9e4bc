// Time travel (issue 23, item 3): `as_of` of one flag and of one person with many unrelated events in
// the log. The service runs in this process (its HTTP on a real port, projections folded here);
// the log gets the flag, a person, then EVENTS unrelated events in /batch/ requests of 10,000, then a
// change to the flag and the person. Then each `as_of` GET (by position, and by time) is timed over
// real HTTP. Targets: one flag <= 50 ms, one person <= 200 ms. Also a person changed once in each of
// the large records (its past spread over all of them). Never fails on the figures.
//   npm run bench -- timetravel [events=1000000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../src/access';
import { openRuntime } from '../../src/app';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/http';
import { benchBatches } from './_ingest-events';
import { report } from './_report';
import { fileURLToPath } from 'node:url';
import { rerunWithStartFlags } from './_node-args';

// The service's code runs in this process: with the node flags `npm start` gives it.
const rerun = rerunWithStartFlags(fileURLToPath(import.meta.url));
if (rerun !== null) process.exit(rerun);

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const PER_REQUEST = 10_000;
const ROUNDS = 30;
/** A person changed once in each large record. */
const HEAVY = 'tt-heavy';
const dataDir = mkdtempSync(join(tmpdir(), 'bench-timetravel-'));
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', INGEST_EVENTS_PER_SECOND: '100000000' });
const runtime = openRuntime({ dataDir, durability: config.DURABILITY });
await runtime.ready;
await runtime.runner.catchUp();
runtime.runner.start();
const app = await buildApp(runtime, config, { logger: false });
const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const p = `/api/projects/${credentials.project_id}`;
const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(url + path, { ...init, headers: { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json' } });
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown> & { id: number; results: { properties: Record<string, unknown> }[] }>;
};
const batch = (events: unknown[]) => api('/batch/', { method: 'POST', body: JSON.stringify({ api_key: credentials.project_api_key, batch: events }) });
const settle = async () => runtime.runner.waitFor(await runtime.log.head());

try {
  const flag = await api(`${p}/feature_flags/`, { method: 'POST', body: JSON.stringify({ key: 'tt-bench', name: 'before', filters: { groups: [{ properties: [], rollout_percentage: 20 }] } }) });
  await batch([{ event: 'signed_up', distinct_id: 'tt-person', properties: { $set: { plan: 'free' } } }]);
  await settle();
  const point = await runtime.log.head();
  const moment = new Date().toISOString();
  console.log(`appending ${EVENTS.toLocaleString('en-US')} unrelated events...`);
  const started = Date.now();
  for (let first = 0; first < EVENTS; first += PER_REQUEST) {
    const [events] = benchBatches(1, Math.min(PER_REQUEST, EVENTS - first), first);
    // One change of the heavy person in every large record: its past is spread over all of them.
    await batch([...events, { event: 'visited', distinct_id: HEAVY, properties: { $set: { visits: first / PER_REQUEST + 1 } } }]);
    if ((first / PER_REQUEST) % 10 === 9) process.stdout.write(`  ${(first + PER_REQUEST).toLocaleString('en-US')} events appended (${Math.round(((first + PER_REQUEST) / (Date.now() - started)) * 1000).toLocaleString('en-US')} events/s)\n`);
  }
  await api(`${p}/feature_flags/${flag.id}/`, { method: 'PATCH', body: JSON.stringify({ name: 'after' }) });
  await batch([{ event: 'upgraded', distinct_id: 'tt-person', properties: { $set: { plan: 'pro' } } }]);
  console.log('waiting for the fold to reach the head...');
  await settle();
  console.log(`log head ${await runtime.log.head()}; timing ${ROUNDS} requests each`);

  const time = async (name: string, path: string, check: (body: Awaited<ReturnType<typeof api>>) => boolean, target: number) => {
    const ms: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const body = await api(path);
      ms.push(performance.now() - t);
      if (!check(body)) throw new Error(`${name}: unexpected answer ${JSON.stringify(body).slice(0, 300)}`);
    }
    ms.sort((a, b) => a - b);
    return { request: name, median_ms: ms[Math.floor(ms.length / 2)], p95_ms: ms[Math.floor(ms.length * 0.95)], max_ms: ms[ms.length - 1], target_ms: target };
  };
  const enc = encodeURIComponent;
  const heavy = HEAVY;
  const heavyRecords = (await runtime.readModels.readmodels.session.get<{ n: number }>('SELECT count(DISTINCT position) AS n FROM distinct_id_events WHERE distinct_id = ?', heavy))!.n;
  const rows = [
    await time('flag as_of position', `${p}/feature_flags/${flag.id}/?as_of=position:${point}`, (b) => b.name === 'before', 50),
    await time('flag as_of time', `${p}/feature_flags/${flag.id}/?as_of=${enc(moment)}`, (b) => b.name === 'before', 50),
    await time('flag live (for scale)', `${p}/feature_flags/${flag.id}/`, (b) => b.name === 'after', 50),
    await time('person as_of position', `${p}/persons/?distinct_id=tt-person&as_of=position:${point}`, (b) => b.results[0]?.properties.plan === 'free', 200),
    await time('person as_of time', `${p}/persons/?distinct_id=tt-person&as_of=${enc(moment)}`, (b) => b.results[0]?.properties.plan === 'free', 200),
    await time(`person changed in ${heavyRecords} large records, as_of now`, `${p}/persons/?distinct_id=${heavy}&as_of=position:${await runtime.log.head()}`, (b) => b.results[0]?.properties.visits === heavyRecords, 200),
  ];
  report(`as_of over HTTP with ${EVENTS.toLocaleString('en-US')} unrelated events in the log (${ROUNDS} requests each)`, rows);
} finally {
  await app.close();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
}
