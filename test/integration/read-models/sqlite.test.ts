import { join } from 'node:path';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';
import { readModelContract } from './contract';

// Two connections of one thread cannot both write (the second waits on the file lock the first
// holds while it awaits): processes and threads each have their own, and one connection's
// transactions take turns, which is what the lock test checks here.
readModelContract(
  'SQLite',
  async () => {
    const file = join(tempDir('read-models-'), 'readmodels.sqlite');
    const open = async () => new SqliteReadModelStore(openSqlite(file));
    return { store: await open(), reopen: open };
  },
  {
    handlesInOneThread: false,
    // A connection of its own, outside the store's turns: what another process's commit is.
    commitElsewhere: async (store, sql, ...params) => {
      const other = openSqlite((store as SqliteReadModelStore).db.name);
      other.prepare(sql).run(...params);
      other.close();
    },
  },
);
