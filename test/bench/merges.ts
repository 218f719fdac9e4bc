// A merge chain in one /batch/ (issue 21, item 4), against the production service as `npm start`
// runs it (dist/, its node flags, projections in their worker thread). One request carries MERGES
// `$merge_dangerously` events chained so that the grown person is merged into a fresh one each time
// (test/support/merge-chain.ts); right after it answers, an ordinary capture for another project is
// sent. Prints: how long the request took to answer, how long the fold took to reach the chain's
// end (from sending it, _health's ingestion checkpoint), and how long after being sent the other
// project's capture was listed by the events API. Targets: the chain folds in <= 5 s, the capture
// is listed within 1 s. Then checks that every id of the chain ends on one person. Never fails on
// the figures.
//   npm run bench -- merges [merges=100000]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { mergeChainBatch } from '../support/merge-chain';
import { startBuiltService } from './_built-service';
import { report } from './_report';

const MERGES = Number(process.argv[2] ?? 100_000);
const TARGET_FOLD_SECONDS = 5;
const TARGET_LISTED_SECONDS = 1;
const WARMUP = 20;
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bench-merges-'));
const dataDir = join(dir, 'data');

// The data directory is initialised by the CLI first: the second project needs it (the service has
// no route that creates projects).
const cli = (...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args, '--json'], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    }),
  ) as Record<string, string>;
const credentials = cli('bootstrap') as { project_id: string; project_api_key: string; personal_api_key: string };
const other = cli('projects', 'create', 'Bystander') as { id: string; api_token: string };

console.log(`building a chain of ${MERGES} merges...`);
const chain = mergeChainBatch('mc-', MERGES);
const gzipped = (body: object) => gzipSync(JSON.stringify(body));
const chainBody = gzipped({ api_key: credentials.project_api_key, batch: chain.events, sent_at: new Date().toISOString() });

const { server, url, exited } = await startBuiltService({ DATA_DIR: dataDir }, root);

const health = async () => (await (await fetch(`${url}/_health`)).json()) as { log_head: number; projections: Record<string, number> };
const post = async (body: Buffer) => {
  const res = await fetch(`${url}/batch/`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};
const listed = async (distinctId: string) => {
  const res = await fetch(`${url}/api/projects/${other.id}/events/?distinct_id=${distinctId}`, { headers: { authorization: `Bearer ${credentials.personal_api_key}` } });
  return ((await res.json()) as { results: unknown[] }).results.length > 0;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * CPU seconds the service's process (all its threads) has used, from /proc (Linux; NaN elsewhere):
 * on a shared machine the wall-clock figures wait for the CPU too, this one does not.
 */
const serverCpuSeconds = () => {
  try {
    const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
};

// Warm-up (JIT, statement caches): ordinary requests of both projects, folded before timing.
for (let i = 0; i < WARMUP; i++) {
  const batch = Array.from({ length: 100 }, (_, j) => ({ event: 'warm-up', distinct_id: `w-${i}-${j % 10}`, properties: { $set: { n: j } } }));
  await post(gzipped({ api_key: i % 2 ? other.api_token : credentials.project_api_key, batch }));
}
const warmHead = (await health()).log_head;
while ((await health()).projections.ingestion < warmHead) await sleep(20);

const cpuBefore = serverCpuSeconds();
const started = performance.now();
await post(chainBody);
const answered = performance.now();
const chainHead = (await health()).log_head;
const probeBody = gzipped({ api_key: other.api_token, batch: [{ event: 'after the chain', distinct_id: 'bystander' }] });
const sent = performance.now();
await post(probeBody);
let foldedAt = 0;
let listedAt = 0;
let cpuFolded = Number.NaN;
while (!foldedAt || !listedAt) {
  if (!foldedAt && (await health()).projections.ingestion >= chainHead) {
    foldedAt = performance.now();
    cpuFolded = serverCpuSeconds() - cpuBefore;
  }
  if (!listedAt && (await listed('bystander'))) listedAt = performance.now();
  if (!foldedAt || !listedAt) await sleep(10);
}
server.kill('SIGTERM');
await exited;

const models = openSqlite(join(dataDir, 'readmodels.sqlite'), { readonly: true });
const owners = models
  .prepare(`SELECT count(DISTINCT person_id) AS persons, count(*) AS ids FROM person_distinct_ids WHERE project_id = ? AND distinct_id LIKE 'mc-%'`)
  .get(Number(credentials.project_id)) as { persons: number; ids: number };
models.close();

const foldSeconds = (foldedAt - started) / 1000;
const listedSeconds = (listedAt - sent) / 1000;
report(`merges: one gzipped /batch/ of ${chain.events.length} chained $merge_dangerously (${(chainBody.length / 1024).toFixed(0)} KiB), then one capture of another project`, [
  { measure: 'chain request answered (s, from sending it)', value: (answered - started) / 1000 },
  { measure: 'chain folded (s, from sending it)', value: foldSeconds },
  { measure: 'service CPU until then (s, all threads: request, fold, checkpointer)', value: cpuFolded },
  { measure: "other project's capture listed (s, from sending it)", value: listedSeconds },
  { measure: 'persons holding the chain ids (expected 1)', value: owners.persons },
  { measure: 'chain ids held', value: owners.ids },
]);
console.log(`\nchain folded in ${foldSeconds.toFixed(2)} s (target <= ${TARGET_FOLD_SECONDS} s): ${foldSeconds <= TARGET_FOLD_SECONDS ? 'MET' : 'NOT MET'}`);
console.log(`other project's capture listed ${listedSeconds.toFixed(2)} s after sending (target <= ${TARGET_LISTED_SECONDS} s): ${listedSeconds <= TARGET_LISTED_SECONDS ? 'MET' : 'NOT MET'}`);
if (owners.persons !== 1 || owners.ids !== chain.ids.length) throw new Error(`the chain's ${chain.ids.length} ids are held by ${owners.persons} persons (${owners.ids} ids)`);
rmSync(dir, { recursive: true, force: true });
