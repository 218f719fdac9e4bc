// A service process for the scheduling race test: opens the data directory and, once GO_FILE
// exists, ticks an export scheduler TICKS times at the fixed clock NOW; prints its totals as one
// JSON line. The projections are caught up once, before GO_AT, and not
// followed: both processes then decide from the same stale read model and try every interval,
// so only the per-run `no_stream` append guard stands between them and double scheduling.
import { existsSync } from 'node:fs';
import { ExportScheduler } from '../../../../src/exports';
import { openRuntime } from '../../../../src/app';

const dataDir = process.env.DATA_DIR!;
const now = new Date(process.env.NOW!);
const ticks = Number(process.env.TICKS ?? 3);
const runtime = openRuntime({ dataDir, now: () => now });
await runtime.runner.catchUp();
const scheduler = new ExportScheduler({ log: runtime.log, exports: runtime.exports.queries.exports, waitFor: async () => {}, now: () => now });
process.stdout.write('ready\n');
// Start together: the test creates GO_FILE once both processes are ready.
while (!existsSync(process.env.GO_FILE!)) await new Promise((resolve) => setTimeout(resolve, 5));
const totals = { scheduled: 0, alreadyScheduled: 0 };
for (let i = 0; i < ticks; i++) {
  const r = await scheduler.tick();
  totals.scheduled += r.scheduled;
  totals.alreadyScheduled += r.alreadyScheduled;
}
process.stdout.write(JSON.stringify(totals) + '\n');
await runtime.close();
