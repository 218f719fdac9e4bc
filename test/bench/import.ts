// Historical migration at speed (issue 24): EVENTS posthog-node style events in a JSONL file are
// imported with the CLI (`import`, in batches of BATCH) into a running service (`npm start`'s
// build, the same DATA_DIR), timed from the import's start until the service's ingestion fold has
// reached the log's head, that is until the events API holds them all. Once directly (the CLI
// appends to the log) and once through NATS (NATS_URL set for both: the CLI publishes to JetStream,
// the service's ingest role appends), in one run. Also checks that every event is stored and that
// the log holds them in the file's order. Target: >= 50,000 events/s end to end. Never fails on the
// figures.
//   npm run bench -- import [events=1000000] [batch=5000]
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { benchEvent } from './_ingest-events';
import { startBuiltService } from './_built-service';
import { report } from './_report';
import { cliArgs } from '../support/child';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const BATCH = Number(process.argv[3] ?? 5000);
const TARGET = 50_000;
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));

/** The CLI as a user runs it; resolves with its exit code once it exits. */
function cli(args: string[], env: Record<string, string>): Promise<number> {
  const child = spawn(process.execPath, cliArgs(args), { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

interface Health {
  log_head: number;
  projections: Record<string, number>;
  ingest_transport?: { consumers?: Record<string, { pending: number; ack_pending: number }> };
}

interface Measured {
  importSeconds: number;
  e2eSeconds: number;
  stored: number;
  inOrder: boolean;
}

async function measure(label: string, file: string, uuids: string[], env: Record<string, string>): Promise<Measured> {
  const dataDir = join(dir, label);
  const { server, url, exited } = await startBuiltService({ ...env, DATA_DIR: dataDir });
  const health = async () => (await (await fetch(`${url}/_health`)).json()) as Health;
  try {
    console.log(`${label}: importing ${EVENTS.toLocaleString('en-US')} events in batches of ${BATCH.toLocaleString('en-US')} ...`);
    const start = performance.now();
    const code = await cli(['import', file, '--batch-size', String(BATCH), '--json'], { ...env, DATA_DIR: dataDir });
    if (code !== 0) throw new Error(`${label}: import exited ${code}`);
    const importSeconds = (performance.now() - start) / 1000;
    // Through NATS the log is complete once the consumers have no message left; then the fold catches up.
    for (;;) {
      const h = await health();
      const pending = Object.values(h.ingest_transport?.consumers ?? {}).reduce((n, c) => n + c.pending + c.ack_pending, 0);
      if (pending === 0 && h.projections.ingestion >= h.log_head) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const e2eSeconds = (performance.now() - start) / 1000;
    server.kill('SIGTERM');
    await exited;
    const models = openSqlite(join(dataDir, 'readmodels.sqlite'), { readonly: true });
    const stored = (models.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    models.close();
    return { importSeconds, e2eSeconds, stored, inOrder: logOrderMatches(join(dataDir, 'events.sqlite'), uuids) };
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  }
}

/** The log's captured events, record by record, are the file's lines in order. */
function logOrderMatches(logFile: string, uuids: string[]): boolean {
  const log = openSqlite(logFile, { readonly: true });
  try {
    let i = 0;
    for (const row of log.prepare("SELECT data FROM events WHERE type = 'EventsCaptured' ORDER BY position").iterate() as Iterable<{ data: string }>) {
      const { events } = JSON.parse(row.data) as { events: { uuid: string }[] };
      for (const e of events) if (e.uuid !== uuids[i++]) return false;
    }
    return i === uuids.length;
  } finally {
    log.close();
  }
}

try {
  const file = join(dir, 'events.jsonl');
  const uuids: string[] = [];
  const out = createWriteStream(file);
  for (let i = 0; i < EVENTS; i++) {
    const event = benchEvent(i);
    uuids.push(event.uuid);
    if (!out.write(JSON.stringify(event) + '\n')) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));

  const direct = await measure('direct', file, uuids, {});
  const id = randomUUID().slice(0, 8);
  const natsEnv = { NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', NATS_STREAM: `BENCH_IMPORT_${id}`, NATS_SUBJECT_PREFIX: `benchimport${id}.ingest` };
  let nats: Measured;
  try {
    nats = await measure('nats', file, uuids, natsEnv);
  } finally {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: natsEnv.NATS_URL });
    await (await jetstreamManager(nc)).streams.delete(natsEnv.NATS_STREAM).catch(() => undefined);
    await nc.close();
  }
  const row = (path: string, m: Measured) => ({
    path,
    'import s': Math.round(m.importSeconds * 100) / 100,
    'end-to-end s': Math.round(m.e2eSeconds * 100) / 100,
    'events/s end to end': Math.round(EVENTS / m.e2eSeconds),
    stored: m.stored,
    'log in file order': m.inOrder ? 'yes' : 'NO',
    result: EVENTS / m.e2eSeconds >= TARGET ? 'MET' : 'NOT MET',
  });
  report(`import: ${EVENTS.toLocaleString('en-US')} events (JSONL, CLI \`import\`, batches of ${BATCH}) into a running service, until its events API holds them all; target >= ${TARGET.toLocaleString('en-US')} events/s`, [
    row('direct', direct),
    row('through NATS', nats),
  ]);
  for (const [path, m] of [['direct', direct], ['through NATS', nats]] as const) {
    if (m.stored !== EVENTS) throw new Error(`${path}: the events table holds ${m.stored} events, expected ${EVENTS}`);
    if (!m.inOrder) throw new Error(`${path}: the log does not hold the events in the file's order`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
