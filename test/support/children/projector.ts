// Runs a projection that records every event it applies, slowly, so the parent can SIGKILL it midway.
import { SqliteEventLog } from '../../../src/store/sqlite/event-log';
import { openSqlite } from '../../../src/store/sqlite/open';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { Projection } from '../../../projections/projection';

const [logPath, storePath] = process.argv.slice(2);
const log = new SqliteEventLog(logPath);
const store = openSqlite(storePath);

const recorder: Projection = {
  name: 'recorder',
  version: 1,
  store: 'readmodels',
  tables: [{ name: 'applied', orderBy: 'position' }],
  setup: (db) => db.exec('CREATE TABLE IF NOT EXISTS applied (position INTEGER PRIMARY KEY, n INTEGER NOT NULL)'),
  apply(event, db) {
    const until = performance.now() + 0.3;
    while (performance.now() < until); // make batches slow enough to be interrupted
    // PRIMARY KEY: applying an event twice throws and stops the projection.
    db.prepare('INSERT INTO applied (position, n) VALUES (?, ?)').run(event.position, (event.data as { n: number }).n);
  },
};

const runner = new ProjectionRunner(log, { readmodels: store, analytics: store }, [recorder], { batchSize: 200 });
const head = await log.head();
runner.start();
const timer = setInterval(() => {
  const cp = runner.checkpoints().recorder;
  process.stdout.write(`checkpoint ${cp}\n`);
  const failures = runner.failures();
  if (Object.keys(failures).length) {
    process.stdout.write(`failed ${JSON.stringify(failures)}\n`);
    process.exit(3);
  }
  if (cp >= head) {
    clearInterval(timer);
    process.stdout.write('done\n');
    runner.stop();
    process.exit(0);
  }
}, 5);
