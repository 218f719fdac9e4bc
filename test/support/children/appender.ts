// Appends batches forever, printing each acknowledged position: the parent kills it with SIGKILL.
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';

const [path, durability] = process.argv.slice(2);
const log = new SqliteEventLog(path, { durability: durability === 'strict' ? 'strict' : 'normal' });
let i = 0;
for (;;) {
  const batch = Array.from({ length: 50 }, () => ({ type: 'Tested', data: { n: i++ } }));
  const r = log.appendSync('crash', batch, { context: { actor: { type: 'system' } } });
  process.stdout.write(`ack ${r.lastPosition}\n`);
  if (i % 500 === 0) await new Promise((r) => setImmediate(r));
}
