// Flag evaluation under load, against a bare route: POST /flags/?v=2 (posthog-node's call) for random
// known users of a project with 50 flags, served by the production service exactly as `npm start`
// runs it (dist/, its node flags, its projection and checkpointer threads, default settings), and
// two bare fastify routes, each in a process of its own with the same node flags, answering the body
// of a typical answer: `object` serialises the same object per request, `bytes` sends the same bytes,
// serialised once (a Buffer made at start-up, `reply.type('application/json').send(bytes)`). All are
// measured in turn in each of ROUNDS back-to-back rounds: a round gives each side SECONDS in SLICES
// alternating slices (the side that starts alternates too), so that all meet the same neighbours on
// a shared machine, and each side's latencies are pooled over its slices. Each round's ratios are
// what counts. Targets per round: against `object`, requests per second >= 1.0x and p99 <= 1.25x;
// against `bytes`, requests per second >= 0.8x and p99 <= 1.25x. Prints every round; never fails.
// Which CPU each side used: on a machine with 2 or more CPUs (and `taskset`), the servers are
// pinned to the last CPU and this process, whose autocannon generates the load, to the others, so
// that the load generator never takes the servers' core (BENCH_PIN=0 leaves placement to the
// kernel). Each round prints each server's CPU time (all its threads, from /proc/<pid>/stat) per
// request and the load generator's CPU use over the same slices.
// With `--store postgres`, a second service on fresh PostgreSQL schemas (log and read models), seeded
// identically, is measured in each round too, in the same slices; per round its req/s against the
// SQLite service's counts, target >= 0.9x (flags are served from memory on both).
// Usage: [BENCH_PIN=0] npm run bench -- decide [seconds=10] [persons=5000] [connections=50] [rounds=5] [slices=5] [--store postgres]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { experimentNodeFlags, npmStartArgs } from './_node-args';
import { postgresService, type BenchCredentials, type PostgresService } from './_postgres-service';
import { report } from './_report';
import { storeArgs } from './_store-arg';

const { withPostgres, args } = storeArgs();
const SECONDS = Number(args[0] ?? 10);
const PERSONS = Number(args[1] ?? 5000);
const CONNECTIONS = Number(args[2] ?? 50);
const ROUNDS = Number(args[3] ?? 5);
const SLICES = Number(args[4] ?? 5);
const WARMUP_SECONDS = 5;
/**
 * After seeding, before measuring: the checkpointer copies the seeded WALs back, and V8's memory
 * reducer runs a full collection in each thread that went idle (about 8 s after it did).
 */
const SETTLE_SECONDS = 10;
const TARGET_RPS_RATIO = 1.0;
const TARGET_P99_RATIO = 1.25;
const TARGET_POSTGRES_RPS_RATIO = 0.9;
const TARGET_BYTES_RPS_RATIO = 0.8;
const GROUPS = 500;
const ROLE = 'DECIDE_BENCH_ROLE';
const root = fileURLToPath(new URL('../../', import.meta.url));

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

// ---------------------------------------------------------------- child: the bare route
async function serveBaseline(mode: string) {
  const { default: Fastify } = await import('fastify');
  const text = readFileSync(process.env.BENCH_BODY_FILE!, 'utf8');
  const typical: unknown = JSON.parse(text);
  const bytes = Buffer.from(text);
  process.on('SIGTERM', () => process.exit(0));
  process.stdin.on('end', () => process.exit(0)).resume();
  const baseline = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  if (mode === 'bytes') baseline.post('/flags', (_request, reply) => reply.type('application/json').send(bytes));
  else baseline.post('/flags', async () => typical);
  await baseline.listen({ port: 0, host: '127.0.0.1' });
  const address = baseline.server.address();
  process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : 0}\n`);
}

// ---------------------------------------------------------------- parent: set-up, load, report
interface Child {
  child: ChildProcess;
  stop: () => Promise<void>;
}

/**
 * Where the processes run: the servers on the last CPU, the load generator (this process, all its
 * threads) on the others; null (the kernel places them) with BENCH_PIN=0, one CPU, or no taskset.
 */
const cpus = availableParallelism();
function placement(): { servers: string; load: string } | null {
  if (process.env.BENCH_PIN === '0' || cpus < 2) return null;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', `0-${cpus - 2}`, String(process.pid)], { stdio: 'ignore' });
  } catch {
    return null;
  }
  return { servers: String(cpus - 1), load: `0-${cpus - 2}` };
}
const pinned = process.env[ROLE] === undefined ? placement() : null;

/** The CPUs a process may run on, as the kernel reports them. */
const allowedCpus = (pid: number) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';

function spawnChild(name: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<Child & { match: RegExpExecArray }> {
  // taskset execs node in its own process: the pid stays the server's.
  const [command, argv] = pinned ? ['taskset', ['-c', pinned.servers, process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = ready.exec(line);
      if (match) resolve({ child, stop, match });
      // Anything else (e.g. --trace-gc through BENCH_NODE_FLAGS) goes to stderr.
      else if (!line.startsWith('{')) process.stderr.write(`[${name}] ${line}\n`);
    });
  });
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

const plans = ['free', 'pro', 'enterprise', 'startup'];
const countries = ['GB', 'US', 'DE', 'FR', 'IN', 'BR'];

/** Groups and persons through /batch/, the flags through the API; returns a typical answer's body. */
async function seed(url: string, credentials: BenchCredentials) {
  const token = credentials.project_api_key;
  const batch = async (events: Record<string, unknown>[]) => {
    const res = await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch: events }) });
    if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}: ${await res.text()}`);
  };
  await batch(
    Array.from({ length: GROUPS }, (_, g) => ({
      event: '$groupidentify',
      distinct_id: 'setup',
      properties: { $group_type: 'company', $group_key: `co-${g}`, $group_set: { size: (g * 37) % 1000, industry: g % 3 ? 'saas' : 'retail' } },
    })),
  );
  for (let start = 0; start < PERSONS; start += 1000) {
    const events = [];
    for (let i = start; i < Math.min(PERSONS, start + 1000); i++)
      events.push({
        event: '$identify',
        distinct_id: `user-${i}`,
        properties: {
          $set: { plan: plans[i % 4], email: `user${i}@${i % 7 ? 'example.com' : 'acme.com'}`, seats: i % 200, country: countries[i % 6], app_version: `1.${i % 12}.0` },
        },
      });
    await batch(events);
  }
  for (;;) {
    const health = (await (await fetch(`${url}/_health`)).json()) as { log_head: number; projections: Record<string, number> };
    if (Object.values(health.projections).every((p) => p >= health.log_head)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const api = (path: string, body: unknown) =>
    fetch(`${url}/api/projects/${credentials.project_id}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.personal_api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  for (const flag of benchFlags()) {
    const res = await api('/feature_flags/', flag);
    if (res.status !== 201) throw new Error(`creating ${String(flag.key)}: ${res.status} ${await res.text()}`);
  }
  // A broken set-up would benchmark a project of strangers (no stored properties): refuse to.
  // The last 'pro' user: multi-0's first condition set (plan pro or enterprise, 100%) gives 'test'.
  const pro = PERSONS - 1 - ((PERSONS - 2) % 4);
  const answer = await fetch(`${url}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, distinct_id: `user-${pro}` }) });
  const flags = ((await answer.json()) as { flags: Record<string, { variant?: string | null }> }).flags;
  if (Object.keys(flags).length !== 50) throw new Error(`expected 50 flags in an answer, got ${Object.keys(flags).length}`);
  if (flags['multi-0'].variant !== 'test') throw new Error('persons were not projected');
  const sample = await fetch(`${url}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: requestBody(token, PERSONS) });
  return sample.text();
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds the run lasted. */
  duration: number;
}
/** The running load: resolves with the result; emits each response's latency (ms, fractional). */
type AutocannonRun = Promise<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void): void;
};
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
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: AutocannonOptions) => AutocannonRun;

/** CPU time a process (all its threads) has used, in ms, from /proc (Linux; USER_HZ is 100 there). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const load = (url: string, token: string, duration: number) =>
  autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/flags/?v=2',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: requestBody(token, PERSONS) }),
      },
    ],
  });

interface Target {
  label: string;
  url: string;
  pid: number;
  token: string;
}

/** One side's figures over a round's slices. */
class Side {
  latencies: number[] = [];
  seconds = 0;
  cpuMs = 0;
  /** CPU time of this process (autocannon, the load generator) over the side's slices. */
  loadCpuMs = 0;
  failed = 0;

  constructor(readonly target: Target) {}

  async slice(seconds: number) {
    const before = cpuMs(this.target.pid);
    const loadBefore = process.cpuUsage();
    const run = load(this.target.url, this.target.token, seconds);
    run.on('response', (_client, _status, _bytes, ms) => this.latencies.push(ms));
    const result = await run;
    this.cpuMs += cpuMs(this.target.pid) - before;
    const used = process.cpuUsage(loadBefore);
    this.loadCpuMs += (used.user + used.system) / 1000;
    this.seconds += result.duration;
    this.failed += result.non2xx + result.errors + result.timeouts;
  }

  get rps() {
    return this.latencies.length / this.seconds;
  }

  percentile(p: number) {
    const sorted = Float64Array.from(this.latencies).sort();
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-decide-'));
  const children: Child[] = [];
  let postgres: PostgresService | null = null;
  try {
    const nodeFlags = npmStartArgs().filter((arg) => arg.startsWith('--'));
    console.log(`service: node ${[...experimentNodeFlags(), ...npmStartArgs()].join(' ')} (default settings); setting up ${PERSONS.toLocaleString()} persons, 50 flags ...`);
    const service = await spawnChild('service', [...experimentNodeFlags(), ...npmStartArgs()], { DATA_DIR: join(dir, 'data'), PORT: '0', HOST: '127.0.0.1', PRINT_CREDENTIALS: 'false' }, /listening at (http:\/\/[^"\s]+)/);
    children.push(service);
    const serviceUrl = service.match[1];
    const credentials = JSON.parse(readFileSync(join(dir, 'data', 'credentials.json'), 'utf8')) as BenchCredentials;
    const body = await seed(serviceUrl, credentials);
    writeFileSync(join(dir, 'body.json'), body);
    const onPostgres: Target[] = [];
    if (withPostgres) {
      console.log('the same on fresh PostgreSQL schemas ...');
      postgres = await postgresService('bench_decide', join(dir, 'pg-bootstrap'));
      const pgService = await spawnChild('postgres', [...experimentNodeFlags(), ...npmStartArgs()], { ...postgres.env, DATA_DIR: join(dir, 'pg-data'), PORT: '0', HOST: '127.0.0.1', PRINT_CREDENTIALS: 'false' }, /listening at (http:\/\/[^"\s]+)/);
      children.push(pgService);
      await seed(pgService.match[1], postgres.credentials);
      onPostgres.push({ label: 'postgres', url: pgService.match[1], pid: pgService.child.pid!, token: postgres.credentials.project_api_key });
    }
    const bare = async (mode: 'object' | 'bytes'): Promise<Target> => {
      const child = await spawnChild(`bare ${mode}`, [...nodeFlags, ...experimentNodeFlags(), '--import', 'tsx', fileURLToPath(import.meta.url)], { [ROLE]: mode, BENCH_BODY_FILE: join(dir, 'body.json') }, /^READY (\d+)/);
      children.push(child);
      return { label: mode, url: `http://127.0.0.1:${child.match[1]}`, pid: child.child.pid!, token: credentials.project_api_key };
    };
    const targets = [
      { label: 'service', url: serviceUrl, pid: service.child.pid!, token: credentials.project_api_key },
      ...onPostgres,
      await bare('object'),
      await bare('bytes'),
    ];
    console.log(`typical answer ${Buffer.byteLength(body)} bytes; ${CONNECTIONS} connections, ${SECONDS} s per side and round in ${SLICES} slices, ${ROUNDS} rounds`);
    console.log(
      `CPUs: ${cpus}; ${pinned ? `servers pinned to CPU ${pinned.servers}, load generator to CPU ${pinned.load}` : 'not pinned (BENCH_PIN=0, one CPU or no taskset)'}; allowed: ${[
        `load generator ${allowedCpus(process.pid)}`,
        ...targets.map((t) => `${t.label} ${allowedCpus(t.pid)}`),
      ].join(', ')}`,
    );

    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
    // Warm-up: JIT, statement and definition caches.
    for (const t of targets) await load(t.url, t.token, WARMUP_SECONDS);
    const rows: Record<string, string | number>[] = [];
    const verdicts: string[] = [];
    let postgresMet = 0;
    let objectMet = 0;
    let invalid = false;
    const ms = (v: number) => Number(v.toFixed(2));
    for (let round = 1; round <= ROUNDS; round++) {
      const sides = targets.map((t) => new Side(t));
      const service = sides[0];
      const [object, bytes] = sides.slice(-2);
      const pg = sides.length > 3 ? sides[1] : null;
      const order = round % 2 ? sides : [...sides].reverse();
      for (let slice = 0; slice < SLICES; slice++)
        for (const side of slice % 2 ? [...order].reverse() : order) await side.slice(SECONDS / SLICES);
      invalid ||= sides.some((side) => side.failed > 0);
      const s99 = service.percentile(0.99);
      const vs = (bare: Side) => ({ rps: service.rps / bare.rps, p99: s99 / bare.percentile(0.99) });
      const [vsObject, vsBytes] = [vs(object), vs(bytes)];
      const pgRps = pg ? pg.rps / service.rps : 0;
      const objectPass = vsObject.rps >= TARGET_RPS_RATIO && vsObject.p99 <= TARGET_P99_RATIO;
      const pass = vsBytes.rps >= TARGET_BYTES_RPS_RATIO && vsBytes.p99 <= TARGET_P99_RATIO;
      objectMet += objectPass ? 1 : 0;
      // CPU per request: unlike the wall-clock figures, barely moved by what else the machine runs.
      const usPerRequest = (side: Side) => Math.round((side.cpuMs * 1000) / side.latencies.length);
      // The load generator's share of one CPU while it loaded this side.
      const loadCpu = (side: Side) => `${Math.round((100 * side.loadCpuMs) / 1000 / side.seconds)}%`;
      rows.push({
        round,
        'service req/s': Math.round(service.rps),
        ...(pg ? { 'postgres req/s': Math.round(pg.rps) } : {}),
        'object req/s': Math.round(object.rps),
        'bytes req/s': Math.round(bytes.rps),
        'vs object': vsObject.rps,
        'vs bytes': vsBytes.rps,
        ...(pg ? { 'postgres/service req/s': pgRps } : {}),
        'service p50': ms(service.percentile(0.5)),
        'service p99': ms(s99),
        ...(pg ? { 'postgres p50': ms(pg.percentile(0.5)), 'postgres p99': ms(pg.percentile(0.99)) } : {}),
        'object p99': ms(object.percentile(0.99)),
        'bytes p50': ms(bytes.percentile(0.5)),
        'bytes p99': ms(bytes.percentile(0.99)),
        'p99 vs object': vsObject.p99,
        'p99 vs bytes': vsBytes.p99,
        'service CPU us/req': usPerRequest(service),
        ...(pg ? { 'postgres CPU us/req': usPerRequest(pg) } : {}),
        'object CPU us/req': usPerRequest(object),
        'bytes CPU us/req': usPerRequest(bytes),
        'load CPU (service/bytes)': `${loadCpu(service)}/${loadCpu(bytes)}`,
        'vs object result': objectPass ? 'PASS' : 'FAIL',
        'vs bytes result': pass ? 'PASS' : 'FAIL',
      });
      verdicts.push(
        `round ${round}: against the bytes route req/s ${vsBytes.rps.toFixed(2)}x (target >= ${TARGET_BYTES_RPS_RATIO.toFixed(2)}), p99 ${ms(s99)} / ${ms(bytes.percentile(0.99))} ms = ${vsBytes.p99.toFixed(2)}x (target <= ${TARGET_P99_RATIO}): ${pass ? 'PASS' : 'FAIL'}; ` +
          `against the object route req/s ${vsObject.rps.toFixed(2)}x (>= ${TARGET_RPS_RATIO.toFixed(2)}), p99 ${vsObject.p99.toFixed(2)}x (<= ${TARGET_P99_RATIO}): ${objectPass ? 'PASS' : 'FAIL'}`,
      );
      if (pg) {
        const met = pgRps >= TARGET_POSTGRES_RPS_RATIO;
        postgresMet += met ? 1 : 0;
        verdicts.push(`round ${round}: PostgreSQL ${Math.round(pg.rps)} req/s (p99 ${ms(pg.percentile(0.99))} ms) = ${pgRps.toFixed(2)}x SQLite's ${Math.round(service.rps)} (target >= ${TARGET_POSTGRES_RPS_RATIO}): ${met ? 'MET' : 'NOT MET'}`);
      }
    }
    report(`decide: POST /flags/?v=2, service vs ${postgres ? 'service on PostgreSQL vs ' : ''}bare fastify sending the object and the bytes (${CONNECTIONS} connections, ${SECONDS} s each per round in ${SLICES} alternating slices, latencies in ms, ${new Date().toISOString()})`, rows);
    console.log('');
    for (const v of verdicts) console.log(v);
    console.log(`${rows.filter((r) => r['vs bytes result'] === 'PASS').length} of ${ROUNDS} rounds met both targets against the bytes route, ${objectMet} of ${ROUNDS} against the object route`);
    if (postgres) console.log(`${postgresMet} of ${ROUNDS} rounds met the PostgreSQL target`);
    if (invalid) console.log('WARNING: some requests failed; the figures are not valid');
  } finally {
    for (const c of children.reverse()) await c.stop();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env[ROLE] !== undefined) await serveBaseline(process.env[ROLE]);
else await main();
