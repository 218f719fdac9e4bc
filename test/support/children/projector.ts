// Runs a projection that records every event it applies, slowly, so the parent can SIGKILL it midway.
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';

const [logPath, storePath] = process.argv.slice(2);
const log = new SqliteEventLog(logPath);
const store = openSqlite(storePath);

const recorder: ReadModelProjection = {
  name: 'recorder',
  version: 1,
  store: 'readmodels',
  tables: [{ name: 'applied', columns: { position: 'integer', n: 'integer' }, primaryKey: ['position'], orderBy: 'position' }],
  async apply(event, db) {
    const until = performance.now() + 0.3;
    while (performance.now() < until); // make batches slow enough to be interrupted
    // PRIMARY KEY: applying an event twice throws and stops the projection.
    await db.run('INSERT INTO applied (position, n) VALUES (?, ?)', event.position, (event.data as { n: number }).n);
  },
};

const port = new SqliteReadModelStore(store);
const runner = new ProjectionRunner(log, { readmodels: port }, [recorder], { batchSize: 200, notifications: { appended$: log.appends, moved$: log.appends, notify: () => {} } });
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
