// Flag evaluation throughput: POST /flags/?v=2 for random known users of a project with 50 flags and
// 100k persons, against a bare fastify route answering a fixed body of the same size (same process,
// another port). Two baselines, since "a fixed JSON body" reads two ways: a route returning the
// same object each time (fastify serialises it per request) and one returning the same bytes. The
// servers run in a child process so the load generator does not share their event loop; two
// alternating rounds each, best round counts. Prints the figures and whether the targets (ratio >= 0.5
// against each baseline, p99 <= 10 ms at 50 connections) are met; never fails.
// Usage: npm run bench -- decide [seconds=10] [persons=100000] [connections=50]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { experimentNodeFlags, npmStartArgs } from './_node-args';
import { report } from './_report';

const SECONDS = Number(process.argv[2] ?? 10);
const PERSONS = Number(process.argv[3] ?? 100_000);
const CONNECTIONS = Number(process.argv[4] ?? 50);
const ROUNDS = 2;
const GROUPS = 500;
const ROLE = 'DECIDE_BENCH_ROLE';

interface Ready {
  servicePort: number;
  baselinePort: number;
  bytesBaselinePort: number;
  token: string;
  persons: number;
  flags: number;
  answerBytes: number;
  setupSeconds: number;
}

/** One random known user's request body, as posthog-node sends it (half of them with a group). */
const requestBody = (token: string, persons: number) => {
  const n = Math.floor(Math.random() * persons);
  return JSON.stringify({
    token,
    distinct_id: `user-${n}`,
    groups: n % 2 ? { company: `co-${n % GROUPS}` } : {},
    person_properties: {},
    group_properties: {},
  });
};

// ---------------------------------------------------------------- child: the two servers
async function serve() {
  const { loadConfig } = await import('../../src/config');
  const { bootstrap } = await import('../../src/access');
  const { buildApp } = await import('../../src/http');
  const { openRuntime } = await import('../../src/app');
  const { geoLookup } = await import('../../src/app');
  const { default: Fastify } = await import('fastify');
  const started = process.hrtime.bigint();
  const persons = Number(process.env.BENCH_PERSONS);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-decide-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  process.on('SIGTERM', () => process.exit(0));
  // stdin is a pipe from the parent: it ends when the parent goes, however it goes.
  process.stdin.on('end', () => process.exit(0)).resume();

  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', PRINT_CREDENTIALS: 'false' });
  const runtime = openRuntime({ dataDir, durability: config.DURABILITY, geo: await geoLookup(config.GEOIP_DIR, () => {}) });
  await runtime.runner.catchUp();
  runtime.runner.start();
  const app = await buildApp(runtime, config, { logger: false });
  const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
  const token = credentials.project_api_key;
  const settle = async () => runtime.runner.waitFor(await runtime.log.head());

  // Persons and groups go through the real ingestion pipeline in /batch/-sized requests.
  const ingest = async (batch: Record<string, unknown>[]) => {
    const body = Buffer.from(JSON.stringify({ api_key: token, batch }));
    await runtime.ingest.ingest({ body, contentType: 'application/json', query: {}, ip: undefined, maxDecompressedBytes: config.BATCH_DECOMPRESSED_LIMIT });
  };
  const plans = ['free', 'pro', 'enterprise', 'startup'];
  const countries = ['GB', 'US', 'DE', 'FR', 'IN', 'BR'];
  await ingest(
    Array.from({ length: GROUPS }, (_, g) => ({
      event: '$groupidentify',
      distinct_id: 'setup',
      properties: { $group_type: 'company', $group_key: `co-${g}`, $group_set: { size: (g * 37) % 1000, industry: g % 3 ? 'saas' : 'retail' } },
    })),
  );
  for (let start = 0; start < persons; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(persons, start + 1000); i++)
      batch.push({
        event: '$identify',
        distinct_id: `user-${i}`,
        properties: {
          $set: { plan: plans[i % 4], email: `user${i}@${i % 7 ? 'example.com' : 'acme.com'}`, seats: i % 200, country: countries[i % 6], app_version: `1.${i % 12}.0` },
        },
      });
    await ingest(batch);
    if (start % 20_000 === 0) process.stderr.write(`ingested ${start + batch.length} persons\n`);
  }
  await settle();
  // A broken setup would benchmark a project of strangers (no stored properties): refuse to.
  const last = await runtime.queries.ingestion.personByDistinctId(credentials.project_id, `user-${persons - 1}`);
  if (last?.properties.plan !== plans[(persons - 1) % 4]) throw new Error('persons were not projected');

  const flags = benchFlags();
  for (const flag of flags) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/projects/${credentials.project_id}/feature_flags/`,
      headers: { authorization: `Bearer ${credentials.personal_api_key}` },
      payload: flag,
    });
    if (res.statusCode !== 201) throw new Error(`creating ${String(flag.key)}: ${res.statusCode} ${res.body}`);
  }
  await app.listen({ port: 0, host: '127.0.0.1' });

  // The baseline answers the body of a real, typical /flags answer (same size), re-serialised per
  // request as the service's route does.
  const sample = await app.inject({ method: 'POST', url: '/flags/?v=2', headers: { 'content-type': 'application/json' }, payload: requestBody(token, persons) });
  const typical: unknown = JSON.parse(sample.body);
  const baseline = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  baseline.post('/flags', async () => typical);
  await baseline.listen({ port: 0, host: '127.0.0.1' });
  const bytes = Buffer.from(sample.body);
  const bytesBaseline = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  bytesBaseline.post('/flags', async (_req, reply) => reply.type('application/json; charset=utf-8').send(bytes));
  await bytesBaseline.listen({ port: 0, host: '127.0.0.1' });

  const port = (a: ReturnType<typeof app.server.address>) => (typeof a === 'object' && a ? a.port : 0);
  const ready: Ready = {
    servicePort: port(app.server.address()),
    baselinePort: port(baseline.server.address()),
    bytesBaselinePort: port(bytesBaseline.server.address()),
    token,
    persons,
    flags: Object.keys((typical as { flags: object }).flags).length,
    answerBytes: Buffer.byteLength(sample.body),
    setupSeconds: Number(process.hrtime.bigint() - started) / 1e9,
  };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
}

/** 50 flags: 20 rollouts, 15 person-property conditions, 12 multivariate, 2 multi-set, 1 group flag. */
function benchFlags(): Record<string, unknown>[] {
  const set = (properties: Record<string, unknown>[], rollout_percentage: number, variant?: string) => ({ properties, rollout_percentage, ...(variant ? { variant } : {}) });
  const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });
  const variants = { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 30 }, { key: 'holdout', rollout_percentage: 20 }] };
  const conditions = [
    person('plan', 'exact', ['pro', 'enterprise']),
    person('email', 'icontains', '@acme.com'),
    person('seats', 'gt', '50'),
    person('country', 'exact', 'GB'),
    person('app_version', 'semver_gte', '1.5.0'),
  ];
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < 20; i++)
    out.push({ key: `rollout-${i}`, filters: { groups: [set([], 5 * (i + 1))], ...(i % 5 === 0 ? { payloads: { true: { n: i } } } : {}) } });
  for (let i = 0; i < 15; i++) out.push({ key: `person-${i}`, filters: { groups: [set([conditions[i % 5]], 50 + i * 3)] } });
  for (let i = 0; i < 12; i++)
    out.push({ key: `mv-${i}`, filters: { groups: [set(i % 2 ? [conditions[i % 5]] : [], 70)], multivariate: variants, payloads: { control: '"c"', test: { t: i } } } });
  for (let i = 0; i < 2; i++)
    out.push({ key: `multi-${i}`, filters: { groups: [set([conditions[0]], 100, 'test'), set([conditions[3], conditions[2]], 60), set([], 10)], multivariate: variants } });
  out.push({ key: 'company-flag', filters: { aggregation_group_type_index: 0, groups: [set([{ key: 'size', operator: 'gte', value: 300, type: 'group', group_type_index: 0 }], 80)] } });
  return out;
}

// ---------------------------------------------------------------- parent: load and report
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  requests: (AutocannonRequest & { setupRequest?: (req: AutocannonRequest) => AutocannonRequest })[];
}
// autocannon ships no types; this is the slice used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: AutocannonOptions) => Promise<AutocannonResult>;

function startChild(): Promise<{ ready: Ready; stop: () => void }> {
  // The servers run with the node flags `npm start` gives the service (a larger young generation);
  // the baselines share the process, so they get the same.
  const startFlags = npmStartArgs().filter((arg) => arg.startsWith('--max-'));
  const child = spawn(process.execPath, [...startFlags, ...experimentNodeFlags(), '--import', 'tsx', fileURLToPath(import.meta.url)], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    env: { ...process.env, [ROLE]: 'server', BENCH_PERSONS: String(PERSONS) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`bench server exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('READY ')) resolve({ ready: JSON.parse(line.slice(6)) as Ready, stop: () => child.kill('SIGTERM') });
      // Anything else the servers print (e.g. --trace-gc through BENCH_NODE_FLAGS) goes to stderr.
      else process.stderr.write(`${line}\n`);
    });
  });
}

async function load(port: number, token: string, persons: number, duration: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/flags/?v=2',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: requestBody(token, persons) }),
      },
    ],
  });
}

async function main() {
  console.log(`setting up: ${PERSONS.toLocaleString()} persons, 50 flags ...`);
  const { ready, stop } = await startChild();
  try {
    console.log(`ready after ${ready.setupSeconds.toFixed(1)} s; ${ready.flags} flags per answer, typical answer ${ready.answerBytes} bytes`);
    // Rounds alternate service and baseline, and each side's best round counts: on a shared machine a
    // neighbour's burst lands in one round, not in one side.
    const targets = [
      { label: 'POST /flags/?v=2 (service)', port: ready.servicePort },
      { label: 'bare fastify, fixed object (baseline)', port: ready.baselinePort },
      { label: 'bare fastify, fixed bytes (baseline)', port: ready.bytesBaselinePort },
    ];
    for (const t of targets) await load(t.port, ready.token, ready.persons, 3); // warm-up: JIT, statement and definition caches
    const rows: Record<string, string | number>[] = [];
    for (let round = 1; round <= ROUNDS; round++)
      for (const t of targets) {
        const r = await load(t.port, ready.token, ready.persons, SECONDS);
        rows.push({
          case: t.label,
          round,
          'req/s': Math.round(r.requests.average),
          'p50 ms': r.latency.p50,
          'p99 ms': r.latency.p99,
          'avg ms': r.latency.average,
          'non-2xx': r.non2xx,
          errors: r.errors + r.timeouts,
        });
      }
    report(`decide (${CONNECTIONS} connections, ${SECONDS} s per round, ${new Date().toISOString()})`, rows);
    const best = (label: string) => rows.filter((r) => r.case === label).sort((x, y) => (y['req/s'] as number) - (x['req/s'] as number))[0];
    const [service, ...baselines] = targets.map((t) => best(t.label));
    const p99 = service['p99 ms'] as number;
    console.log(`\nbest rounds: service ${service['req/s']} req/s (p50 ${service['p50 ms']} ms, p99 ${p99} ms)`);
    for (const baseline of baselines) {
      const ratio = (service['req/s'] as number) / (baseline['req/s'] as number);
      console.log(`service / ${baseline.case} = ${service['req/s']} / ${baseline['req/s']} req/s = ${ratio.toFixed(2)} (target >= 0.50): ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`);
    }
    console.log(`service p99 = ${p99} ms at ${CONNECTIONS} connections (target <= 10 ms): ${p99 <= 10 ? 'MET' : 'NOT MET'}`);
    if (rows.some((r) => r['non-2xx'] !== 0 || r.errors !== 0)) console.log('WARNING: some requests failed; the figures are not valid');
  } finally {
    stop();
  }
}

if (process.env[ROLE] === 'server') await serve();
else await main();
