// The auditor's commands over a large log (issue 23): EVENTS posthog-node style events are imported
// with the CLI (in batches of BATCH, as one log record each), then `replay` (every read model folded
// from the log into a fresh store) and `verify` (the hash chain checked from the start, then the live
// read models caught up, replayed and compared) are run as a user runs them (`npm run cli`: the
// built CLI, not the sources through a transpiler), each timed from its start to its exit, start-up
// included. verify runs twice: first with the live read models still to fold (the import only
// appended), then with them caught up, as an auditor finds them on a running installation. Prints
// events/s of each; target: replay and verify >= 100,000 events/s. Never fails on the figures.
//   npm run bench -- replay [events=1000000] [batch=10000]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEvent } from './_ingest-events';
import { report } from './_report';
import { cliArgs } from '../support/child';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const BATCH = Number(process.argv[3] ?? 10_000);
const TARGET = 100_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
const dataDir = join(dir, 'data');

function cli(args: string[]): { stdout: string; seconds: number } {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, cliArgs(args), {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`cli ${args.join(' ')} exited ${r.status}: ${r.stdout}`);
  return { stdout: r.stdout, seconds };
}

try {
  const file = join(dir, 'events.jsonl');
  const out = createWriteStream(file);
  for (let i = 0; i < EVENTS; i++) if (!out.write(JSON.stringify(benchEvent(i)) + '\n')) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await new Promise<void>((resolve) => out.end(() => resolve()));
  cli(['bootstrap', '--json']);
  console.log(`importing ${EVENTS.toLocaleString('en-US')} events in batches of ${BATCH.toLocaleString('en-US')} ...`);
  const imported = cli(['import', file, '--batch-size', String(BATCH), '--json']);
  const replay = cli(['replay', '--json']);
  // The import left the live read models where bootstrap did: the first verify folds them to the
  // head beside its replay; the second finds them caught up, as on a running installation.
  const verifyFolding = cli(['verify', '--json']);
  const verify = cli(['verify', '--json']);
  const outcome = (run: { stdout: string }) => {
    const verified = JSON.parse(run.stdout.trim().split('\n').pop()!) as { ok: boolean; chain?: { checked: number } };
    return { 'chain records checked': verified.chain?.checked ?? 0, ok: String(verified.ok) };
  };
  const row = (name: string, seconds: number, extra: Record<string, string | number> = {}) => ({
    command: name,
    seconds: Math.round(seconds * 100) / 100,
    'events/s': Math.round(EVENTS / seconds),
    target: name === 'import' ? '' : `>= ${TARGET.toLocaleString('en-US')}`,
    result: name === 'import' ? '' : EVENTS / seconds >= TARGET ? 'PASS' : 'FAIL',
    ...extra,
  });
  report(`replay: the auditor's commands over ${EVENTS.toLocaleString('en-US')} imported events (${new Date().toISOString()})`, [
    row('import', imported.seconds),
    row('replay', replay.seconds),
    row('verify, live read models folded meanwhile', verifyFolding.seconds, outcome(verifyFolding)),
    row('verify, live read models caught up', verify.seconds, outcome(verify)),
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
