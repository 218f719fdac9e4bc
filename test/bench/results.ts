// Experiment results: GET /experiments/:id/results/ (funnel) and /secondary_results/ (trend) over
// 1,000,000 ingested events of 100,000 persons, through the real HTTP app. The events are appended
// to the log as EventCaptured batches (what /batch/ appends) and folded by the real projections.
// Prints the time per call: cold (first call, and after each new event), and cached; and the query
// endpoint's time for a mean metric with CUPED (ExperimentQuery, never cached: every call is cold).
// The same log is then answered from each analytics engine asked for (issue 25): the embedded
// store (sqlite), a ClickHouse server (clickhouse: CLICKHOUSE_BENCH_URL, else HOGQL_CLICKHOUSE_URL,
// else http://127.0.0.1:8123) and chDB in-process (chdb: `bash infra/chdb.sh`), each ClickHouse
// engine filled by the analytics projection from the log first (its events/s printed too).
//   npm run bench -- results [events=1000000] [persons=100000] [engines=sqlite,clickhouse,chdb]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { randomBytes } from 'node:crypto';
import { ingestStream, type NewEvent } from '../../streams';
import { chdbAvailable } from '../../src/adapters/clickhouse/chdb/module';
import { dropAnalyticsDatabase } from '../../src/app/open-analytics';
import type { FoldedAnalyticsChoice } from '../../src/config';
import { bootstrap } from '../../src/access';
import { loadConfig } from '../../src/config';
import { buildApp } from '../../src/http';
import { openRuntime } from '../../src/app';
import { report, timedAsync } from './_report';
import { fileURLToPath } from 'node:url';
import { rerunWithStartFlags } from './_node-args';

// The service's code runs in this process: with the node flags `npm start` gives it.
const rerun = rerunWithStartFlags(fileURLToPath(import.meta.url));
if (rerun !== null) process.exit(rerun);

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const PERSONS = Number(process.argv[3] ?? 100_000);
const ENGINES = (process.argv[4] ?? 'sqlite,clickhouse,chdb').split(',');
const CLICKHOUSE_URL = process.env.CLICKHOUSE_BENCH_URL ?? process.env.HOGQL_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const FLAG = 'bench-exp';
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const config = loadConfig({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent', PRINT_CREDENTIALS: 'false' });
let runtime = openRuntime({ dataDir: dir });
await runtime.runner.catchUp();
runtime.runner.start();
let app = await buildApp(runtime, config, { logger: false });
const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
const projectId = credentials.project_id;
const now = Date.now();
const start = new Date(now - 31 * DAY).toISOString();

/**
 * Every person: one `$feature_flag_called` (variant by parity), page views to fill the volume, and
 * a purchase for 10% (control) / 12% (test). 5% browse anonymously first and identify later (a
 * merge). Page views make up the rest of the million, spread over 30 days.
 */
function* events(): Generator<Record<string, unknown>> {
  const base = EVENTS - PERSONS * 1.16;
  let emitted = 0;
  for (let p = 0; p < PERSONS; p++) {
    const variant = p % 2 ? 'test' : 'control';
    const anon = p % 20 === 0 ? `anon-${p}` : null;
    const id = anon ?? `user-${p}`;
    const t0 = now - 30 * DAY + ((p * 7919) % (29 * DAY));
    const props = (i: number) => ({
      $current_url: `https://app.example.com/projects/${i % 97}/dashboard?tab=${i % 5}`,
      $browser: 'Chrome',
      $os: 'Mac OS X',
      $lib: 'posthog-node',
      $lib_version: '5.11.0',
      plan: i % 3 ? 'pro' : 'free',
      [`$feature/${FLAG}`]: variant,
    });
    yield { event: '$feature_flag_called', distinct_id: id, t: t0, properties: { ...props(p), $feature_flag: FLAG, $feature_flag_response: variant } };
    const views = Math.round(base / PERSONS + ((p % 5) - 2));
    for (let v = 0; v < views && emitted < base; v++, emitted++) yield { event: '$pageview', distinct_id: id, t: t0 + (v + 1) * 60_000, properties: props(p + v) };
    if (anon) yield { event: '$identify', distinct_id: `user-${p}`, t: t0 + DAY / 2, properties: { $anon_distinct_id: anon } };
    if ((p * 37) % 100 < (variant === 'test' ? 12 : 10)) yield { event: 'purchase', distinct_id: `user-${p}`, t: t0 + DAY, properties: { ...props(p), revenue: 30 } };
  }
  while (emitted++ < base) yield { event: '$pageview', distinct_id: `user-${emitted % PERSONS}`, t: now - (emitted % (29 * DAY)), properties: { $lib: 'posthog-node' } };
}

const toCaptured = (e: Record<string, unknown>): NewEvent => {
  const iso = new Date(e.t as number).toISOString();
  return {
    type: 'EventCaptured',
    data: { uuid: uuidv7(), event: e.event, distinct_id: e.distinct_id, properties: e.properties, timestamp: iso, sent_at: null, received_at: iso, ip: null, historical_migration: true },
  };
};

const built = await timedAsync(async () => {
  let batch: NewEvent[] = [];
  let count = 0;
  const flush = async () => {
    await runtime.log.append(ingestStream(projectId), batch, { context: { actor: { type: 'project_key', projectId }, projectId } });
    count += batch.length;
    batch = [];
  };
  for (const e of events()) {
    batch.push(toCaptured(e));
    if (batch.length === 5000) await flush();
  }
  if (batch.length) await flush();
  await runtime.runner.waitFor(await runtime.log.head());
  return count;
});
const stats = runtime.stores!.readmodels.prepare('SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM persons) AS persons').get() as { events: number; persons: number };
console.log(`built ${built.result.toLocaleString('en-US')} events (${stats.events.toLocaleString('en-US')} rows, ${stats.persons.toLocaleString('en-US')} persons) in ${built.seconds.toFixed(1)} s`);

const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.inject({ method, url, payload: payload as object | undefined, headers: { authorization: `Bearer ${credentials.personal_api_key}` } });
const created = await api('POST', `/api/projects/${projectId}/experiments/`, {
  name: 'Bench',
  feature_flag_key: FLAG,
  start_date: start,
  filters: { insight: 'FUNNELS', events: [{ id: '$feature_flag_called', order: 0 }, { id: 'purchase', order: 1 }] },
  secondary_metrics: [{ name: 'Purchases', filters: { insight: 'TRENDS', events: [{ id: 'purchase' }] } }],
  metrics: [{ kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'revenue' } }],
  stats_config: { method: 'bayesian', cuped: { enabled: true, lookback_days: 14 } },
});
const experimentId = (created.json() as { id: number }).id;
const metric = (created.json() as { metrics: unknown[] }).metrics[0];

/** Until the read models and, with a ClickHouse engine, its projection hold `position`. */
const folded = async (position: number) => {
  await runtime.runner.waitFor(position);
  await runtime.analyticsFold?.waitFor(position);
};

const call = async (kind: 'results' | 'secondary_results') => {
  const { result: res, seconds } = await timedAsync(() => api('GET', `/api/projects/${projectId}/experiments/${experimentId}/${kind}/`));
  if (res.statusCode !== 200) throw new Error(`${kind}: ${res.statusCode} ${res.body}`);
  return { seconds, body: res.json() as { is_cached: boolean; result: unknown } };
};
/** One new event for the project: the cache must recompute. */
const touch = async () => {
  const position = (await runtime.log.append(ingestStream(projectId), [toCaptured({ event: '$pageview', distinct_id: 'late', t: Date.now(), properties: {} })], { context: { actor: { type: 'project_key', projectId }, projectId } })).lastPosition;
  await folded(position);
};

/** The three endpoints' times on the analytics engine the runtime has now. */
async function measure(engine: string): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  for (const kind of ['results', 'secondary_results'] as const) {
    const first = await call(kind);
    if (first.body.is_cached) throw new Error('first call was cached');
    const colds = [first.seconds];
    for (let i = 0; i < 3; i++) {
      await touch();
      const again = await call(kind);
      if (again.body.is_cached) throw new Error('call after a new event was cached');
      colds.push(again.seconds);
    }
    const cached: number[] = [];
    for (let i = 0; i < 50; i++) {
      const hit = await call(kind);
      if (!hit.body.is_cached) throw new Error('repeat call was not cached');
      cached.push(hit.seconds);
    }
    rows.push({
      engine,
      endpoint: `/${kind}/`,
      'cold first (ms)': colds[0] * 1000,
      'cold after new event, mean of 3 (ms)': (colds.slice(1).reduce((a, b) => a + b, 0) / 3) * 1000,
      'cached, mean of 50 (ms)': (cached.reduce((a, b) => a + b, 0) / cached.length) * 1000,
    });
    if (kind === 'results') console.log(engine, JSON.stringify((first.body.result as { variants: unknown }).variants));
  }
  const times: number[] = [];
  let body: unknown;
  for (let i = 0; i < 4; i++) {
    if (i > 0) await touch();
    const { result: res, seconds } = await timedAsync(() => api('POST', `/api/projects/${projectId}/query/`, { query: { kind: 'ExperimentQuery', metric, experiment_id: experimentId } }));
    if (res.statusCode !== 200) throw new Error(`query: ${res.statusCode} ${res.body}`);
    times.push(seconds);
    body = res.json();
  }
  rows.push({
    engine,
    endpoint: '/query/ ExperimentQuery (mean, CUPED)',
    'cold first (ms)': times[0] * 1000,
    'cold after new event, mean of 3 (ms)': ((times[1] + times[2] + times[3]) / 3) * 1000,
    'cached, mean of 50 (ms)': '-',
  });
  const b = body as { baseline: { number_of_samples: number }; variant_results: { number_of_samples: number; chance_to_win: number }[] };
  console.log(engine, JSON.stringify({ baseline: b.baseline.number_of_samples, test: b.variant_results[0]?.number_of_samples, chance_to_win: b.variant_results[0]?.chance_to_win }));
  return rows;
}

/** Whether the engine can run here (a missing server or package is said, not fatal). */
async function available(engine: string): Promise<boolean> {
  if (engine === 'sqlite') return true;
  if (engine === 'chdb') return chdbAvailable();
  if (engine === 'clickhouse') return fetch(`${CLICKHOUSE_URL}/?query=SELECT%201`).then((r) => r.ok, () => false);
  throw new Error(`unknown engine ${engine}: sqlite, clickhouse or chdb`);
}

const choiceOf = (engine: string): FoldedAnalyticsChoice => {
  const database = `bench_${randomBytes(4).toString('hex')}`;
  return engine === 'chdb' ? { kind: 'chdb', path: join(dir, 'analytics-chdb'), database } : { kind: 'clickhouse', url: CLICKHOUSE_URL, database };
};

const rows: Record<string, string | number>[] = [];
const filled: Record<string, string | number>[] = [];
for (const engine of ENGINES) {
  if (!(await available(engine))) {
    console.log(`${engine}: not available here, skipped`);
    continue;
  }
  if (engine === 'sqlite') {
    if (runtime.analyticsFold) throw new Error('list sqlite first');
    rows.push(...(await measure(engine)));
    continue;
  }
  // The same log and read models, answered from a ClickHouse engine the analytics projection fills first.
  await app.close();
  await runtime.close();
  const choice = choiceOf(engine);
  try {
    const fill = await timedAsync(async () => {
      runtime = openRuntime({ dataDir: dir, analytics: choice });
      await runtime.ready;
      await runtime.runner.catchUp();
      runtime.runner.start();
      await runtime.analyticsFold!.waitFor(await runtime.log.head());
    });
    filled.push({ engine, events: stats.events, seconds: fill.seconds, 'events/s': Math.round(stats.events / fill.seconds) });
    app = await buildApp(runtime, config, { logger: false });
    rows.push(...(await measure(engine)));
  } finally {
    await app.close();
    await runtime.close();
    await dropAnalyticsDatabase(choice);
    runtime = openRuntime({ dataDir: dir });
    await runtime.runner.catchUp();
    app = await buildApp(runtime, config, { logger: false });
  }
}
if (filled.length) report('the analytics projection filling each ClickHouse engine from the log (read models already folded)', filled);
report(`experiment results over ${stats.events.toLocaleString('en-US')} events / ${stats.persons.toLocaleString('en-US')} persons (target: cold <= 1 s)`, rows);
await app.close();
await runtime.close();
