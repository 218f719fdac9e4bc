// Event log throughput: 1-event and 1000-event appends, catch-up reads, against the raw better-sqlite3
// insert rate of the same rows (same table, same index) measured in the same run; and what the hash
// chain costs, with and without it in the same run, on logs written as the service writes its own
// (a checkpointer thread beside the appends).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contracts } from '../../streams';
import { ContractedEventLog } from '../../src/store/contracted-log';
import { SqliteEventLog } from '../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../src/adapters/sqlite/open';
import { startCheckpointer } from '../../src/adapters/sqlite/checkpointer';
import { CHECKPOINT_MS, CHECKPOINT_NICE, LOG_BACKSTOP_CHECKPOINT_PAGES } from '../../src/app/open-runtime';
import { postgresLogRows } from './_log-postgres';
import { report, timed, timedAsync } from './_report';
import { storeArgs } from './_store-arg';

// `--store postgres` adds the PostgreSQL adapter's figures after the SQLite ones (same workload).
const { withPostgres, args } = storeArgs();
const dir = mkdtempSync(join(tmpdir(), 'bench-log-'));
const BATCHES = Number(args[0] ?? 200);
const SINGLE = Number(args[1] ?? 20_000);
const ctx = { actor: { type: 'system' as const }, projectId: 1 };
const payload = (i: number) => ({
  uuid: randomUUID(),
  event: '$pageview',
  distinct_id: `user-${i % 5000}`,
  properties: { $current_url: `https://example.com/page/${i}`, $browser: 'Chrome', $lib: 'posthog-node', $lib_version: '5.0.0', n: i },
  timestamp: new Date(1_700_000_000_000 + i).toISOString(),
  sent_at: null,
  received_at: new Date(1_700_000_000_000 + i).toISOString(),
  ip: '127.0.0.1',
  historical_migration: false,
});
const batches = Array.from({ length: BATCHES }, (_, b) =>
  Array.from({ length: 1000 }, (_, i) => ({ type: 'EventCaptured', data: payload(b * 1000 + i) })),
);
const total = BATCHES * 1000;
const rows: Record<string, string | number>[] = [];

// Baseline: the same rows inserted with a bare prepared statement, one transaction per 1000.
{
  // The log creates the file: identical schema and storage (4 KB pages, WAL). Opened the other way
  // round, the bare connection's default 16 KB pages would make the baseline a different table.
  new SqliteEventLog(join(dir, 'raw.sqlite')).close();
  const db = openSqlite(join(dir, 'raw.sqlite'));
  const insert = db.prepare(
    `INSERT INTO events (position, stream_id, revision, type, schema_version, data, event_id, recorded_at, project_id, actor, causation_id, correlation_id)
     VALUES (NULL, ?, ?, ?, 1, ?, ?, ?, 1, '{"type":"system"}', NULL, NULL)`,
  );
  const serialised = batches.map((b) => b.map((e) => JSON.stringify(e.data)));
  const now = new Date().toISOString();
  let rev = 0;
  const tx = db.transaction((batch: string[]) => {
    for (const data of batch) insert.run('ingest-1', rev++, 'EventCaptured', data, randomUUID(), now);
  });
  const { seconds } = timed(() => serialised.forEach((b) => tx.immediate(b)));
  rows.push({ case: 'raw better-sqlite3 insert (baseline)', events: total, seconds, 'events/s': Math.round(total / seconds) });
  db.close();
}
const rawRate = rows[0]['events/s'] as number;

for (const [label, contracted] of [
  ['log.append, 1000-event batches', false],
  ['log.append + contract validation, 1000-event batches', true],
] as const) {
  const sqlite = new SqliteEventLog(join(dir, `${rows.length}.sqlite`));
  // A serving log's chain thread is running: its start is not what is measured.
  await sqlite.warmChain();
  const log = contracted ? new ContractedEventLog(sqlite, contracts) : sqlite;
  const { seconds } = await timedAsync(async () => {
    for (const b of batches) await log.append('ingest-1', b, { context: ctx });
  });
  const rate = Math.round(total / seconds);
  rows.push({ case: label, events: total, seconds, 'events/s': rate, 'ratio to raw': rate / rawRate });
  await log.close();
}

// The hash chain's cost: the same appends with and without it, alternating within each round (the
// machine's speed drifts, and other processes may share it): each round's ratio compares two runs
// made next to each other, and the median of the rounds' ratios is the figure. For small records
// (1000 per append) and for records shaped as ingestion writes them (one EventsCaptured record of
// 1000 prepared events per append).
const CHAIN_ROUNDS = Number(process.env.BENCH_CHAIN_ROUNDS ?? 7);
const chainRows: Record<string, string | number>[] = [];
{
  const captured = batches.slice(0, Math.max(1, Math.floor(BATCHES / 2))).map((b) => {
    const texts = b.map((e) => JSON.stringify(e.data));
    return [{ type: 'EventsCaptured', data: { events: b.map((e) => e.data) }, serialized: `{"events":[${texts.join(',')}]}` }];
  });
  const workloads = [
    { name: '1000-record batches', appends: batches, events: total },
    // Five passes over the records: one pass of a hundred appends lasts ~60 ms, within the noise.
    { name: '1 record of 1000 events per append', appends: [captured, captured, captured, captured, captured].flat(), events: 5 * captured.length * 1000 },
  ];
  for (const w of workloads) {
    const seconds: Record<string, number[]> = { with: [], without: [] };
    const costs: number[] = [];
    for (let round = 0; round < CHAIN_ROUNDS; round++) {
      const pair: Record<string, number> = {};
      for (const chain of round % 2 ? [true, false] : [false, true]) {
        const file = join(dir, `chain-${chain}-${round}-${chainRows.length}.sqlite`);
        // As the service writes its log: a checkpointer thread copies the WAL back, and appends
        // checkpoint themselves only past the backstop (inline checkpoints and their fsyncs would
        // land in one side's run or the other's, and are none of the chain's cost).
        const log = new SqliteEventLog(file, { chain, backstopCheckpointPages: LOG_BACKSTOP_CHECKPOINT_PAGES });
        const checkpointer = startCheckpointer({ files: [file], periodMs: CHECKPOINT_MS, nice: CHECKPOINT_NICE });
        // A serving log's chain thread is running: its start is not what is measured.
        await log.warmChain();
        const t = await timedAsync(async () => {
          for (const b of w.appends) await log.append('ingest-1', b, { context: ctx });
        });
        pair[chain ? 'with' : 'without'] = t.seconds;
        seconds[chain ? 'with' : 'without'].push(t.seconds);
        await checkpointer.close();
        await log.close();
        rmSync(join(dir, `chain-${chain}-${round}-${chainRows.length}.sqlite`), { force: true });
      }
      costs.push(pair.with / pair.without - 1);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    chainRows.push({
      workload: w.name,
      'events/s without chain (best)': Math.round(w.events / Math.min(...seconds.without)),
      'events/s with chain (best)': Math.round(w.events / Math.min(...seconds.with)),
      'chain cost (median of rounds)': pct(median(costs)),
      'rounds': costs.map(pct).join(' '),
    });
  }
}

{
  const log = new SqliteEventLog(join(dir, 'single.sqlite'));
  const { seconds } = await timedAsync(async () => {
    for (let i = 0; i < SINGLE; i++) await log.append(`s-${i % 100}`, [{ type: 'EventCaptured', data: payload(i) }], { context: ctx });
  });
  rows.push({ case: 'log.append, 1-event appends', events: SINGLE, seconds, 'events/s': Math.round(SINGLE / seconds) });
  await log.close();
}

{
  const log = new SqliteEventLog(join(dir, '1.sqlite'));
  const { result: n, seconds } = await timedAsync(async () => {
    let count = 0;
    let after = 0;
    for (;;) {
      const batch = await log.readAll({ afterPosition: after, maxCount: 2000 });
      if (!batch.length) break;
      count += batch.length;
      after = batch[batch.length - 1].position;
    }
    return count;
  });
  rows.push({ case: 'catch-up readAll (2000/batch)', events: n, seconds, 'events/s': Math.round(n / seconds) });
  await log.close();
}

report(`event log (${total.toLocaleString()} events, ${new Date().toISOString()})`, rows);
const ratio = rows[1]['ratio to raw'] as number;
console.log(`\nbatched append / raw insert = ${ratio.toFixed(2)} (target >= 0.60): ${ratio >= 0.6 ? 'MET' : 'NOT MET'}`);
report(`hash chain cost, batched appends (${CHAIN_ROUNDS} rounds, with and without side by side in each; ${new Date().toISOString()})`, chainRows);
for (const r of chainRows) {
  const cost = parseFloat(String(r['chain cost (median of rounds)']));
  console.log(`chain cost, ${r.workload}: ${r['chain cost (median of rounds)']} (target <= 10%): ${cost <= 10 ? 'MET' : 'NOT MET'}`);
}
rmSync(dir, { recursive: true, force: true });

if (withPostgres) {
  const pgRows = await postgresLogRows(batches, Math.min(SINGLE, 5_000), payload);
  if (pgRows) report(`event log on PostgreSQL (same ${total.toLocaleString()} events, ${new Date().toISOString()})`, pgRows);
  else console.log('\npostgres: no PostgreSQL at 127.0.0.1:5432/test, skipped');
}
