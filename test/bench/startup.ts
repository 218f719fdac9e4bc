// Start-up of the production build: the time from spawning `npm start`'s node command (its flags and
// entry read from package.json; the npm client itself is not part of the service) to the first 200
// from /_health, on a data directory that already holds data, and the service process's resident
// memory once idle (IDLE_SECONDS after healthy; a process's RSS covers its worker threads). Several
// runs, medians against the targets. Prints the figures; never fails.
//   npm run bench -- startup [runs=5] [events=5000]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmStartArgs } from './_node-args';
import { report } from './_report';

const RUNS = Number(process.argv[2] ?? 5);
const EVENTS = Number(process.argv[3] ?? 5000);
const IDLE_SECONDS = 5;
const TARGET_HEALTHY_MS = 1500;
const TARGET_RSS_MIB = 200;
const PORT = 20_000 + Math.floor(Math.random() * 20_000);
const root = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const url = `http://127.0.0.1:${PORT}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function start(): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, npmStartArgs(), {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', PRINT_CREDENTIALS: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

async function healthy(deadline: number): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`${url}/_health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the service did not become healthy within 60 s');
    await sleep(5);
  }
}

async function stop(server: { child: ChildProcess; exited: Promise<void> }) {
  server.child.kill('SIGTERM');
  await server.exited;
}

/**
 * CPU time the process (all its threads) has used, from /proc (Linux; USER_HZ is 100 there). On a
 * busy machine the wall time to healthy mostly measures the neighbours; this does not.
 */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** VmRSS and thread count of a process, from /proc (Linux). */
function memory(pid: number): { rssMiB: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: field('VmRSS') / 1024, threads: field('Threads') };
}

/** First start: bootstrap, then EVENTS events from 500 persons through /batch/, folded before it stops. */
async function seed() {
  const server = start();
  await healthy(Date.now() + 60_000);
  const { project_api_key: token } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { project_api_key: string };
  const names = ['$pageview', '$autocapture', 'signed up', 'purchase', '$identify'];
  for (let sent = 0; sent < EVENTS; sent += 1000) {
    const batch = Array.from({ length: Math.min(1000, EVENTS - sent) }, (_, k) => {
      const i = sent + k;
      return {
        event: names[i % names.length],
        distinct_id: `user-${i % 500}`,
        timestamp: new Date(Date.now() - i * 1000).toISOString(),
        properties: { $current_url: `https://app.example.com/page/${i % 40}`, plan: i % 3 ? 'pro' : 'free', $set: { plan: i % 3 ? 'pro' : 'free' }, $geoip_disable: true },
      };
    });
    const res = await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) });
    if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}: ${await res.text()}`);
  }
  // Folded: every projection at the log's head.
  for (;;) {
    const health = (await (await fetch(`${url}/_health`)).json()) as { log_head: number; projections: Record<string, number> };
    if (Object.values(health.projections).every((p) => p >= health.log_head)) break;
    await sleep(100);
  }
  await stop(server);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  console.log(`node ${npmStartArgs().join(' ')}; seeding ${dataDir} with ${EVENTS.toLocaleString()} events ...`);
  await seed();
  const rows: Record<string, string | number>[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const spawned = process.hrtime.bigint();
    const server = start();
    await healthy(Date.now() + 60_000);
    const healthyMs = Number(process.hrtime.bigint() - spawned) / 1e6;
    const cpu = cpuMs(server.child.pid!);
    await sleep(IDLE_SECONDS * 1000);
    const idle = memory(server.child.pid!);
    await stop(server);
    rows.push({ run, 'healthy ms': Math.round(healthyMs), 'CPU ms to healthy': cpu, 'idle RSS MiB': Math.round(idle.rssMiB), threads: idle.threads });
  }
  report(`startup (existing data directory, ${EVENTS.toLocaleString()} events; RSS ${IDLE_SECONDS} s after healthy; ${new Date().toISOString()})`, rows);
  const ms = median(rows.map((r) => r['healthy ms'] as number));
  const rss = median(rows.map((r) => r['idle RSS MiB'] as number));
  const cpu = median(rows.map((r) => r['CPU ms to healthy'] as number));
  console.log(`\nmedian time to healthy: ${ms} ms (target <= ${TARGET_HEALTHY_MS} ms): ${ms <= TARGET_HEALTHY_MS ? 'PASS' : 'FAIL'} (CPU used meanwhile, all threads: ${cpu} ms)`);
  console.log(`median idle RSS: ${rss} MiB (target <= ${TARGET_RSS_MIB} MiB): ${rss <= TARGET_RSS_MIB ? 'PASS' : 'FAIL'}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
