import { join } from 'node:path';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { tempDir } from '../../support/temp-dir';
import { eventLogContract } from './contract';

const dir = tempDir('log-');
let n = 0;

eventLogContract('SQLite', async (options) => {
  const path = join(dir, `log-${++n}.sqlite`);
  return { log: new SqliteEventLog(path, { pollIntervalMs: 20, ...options }), reopen: async () => new SqliteEventLog(path, { pollIntervalMs: 20 }) };
});
