import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';

const counting: ReadModelProjection = {
  name: 'counting',
  version: 1,
  store: 'readmodels',
  tables: [{ name: 'seen', columns: { position: 'integer' }, primaryKey: ['position'], orderBy: 'position' }],
  apply: async (event, db) => void (await db.run('INSERT INTO seen (position) VALUES (?)', event.position)),
};

describe('projection runner batches', () => {
  it('splits a backlog of large records into bounded batches (not one batch of every record)', async () => {
    const dir = tempDir('runner-batches-');
    const log = new SqliteEventLog(join(dir, 'log.sqlite'));
    // 40 records of ~1 MB: what 40 large /batch/ requests leave behind.
    const pad = 'x'.repeat(1_000_000);
    for (let i = 0; i < 40; i++) log.appendSync('big', [{ type: 'Noted', data: { i, pad } }], { context: { actor: { type: 'system' } } });
    const stores = { readmodels: openSqlite(join(dir, 'rm.sqlite')) };
    const runner = new ProjectionRunner(log, { readmodels: new SqliteReadModelStore(stores.readmodels) }, [counting]);
    let batches = 0;
    runner.progress$.subscribe(() => batches++);
    await runner.catchUp();
    expect(runner.checkpoints().counting).toBe(40);
    expect((stores.readmodels.prepare('SELECT count(*) AS n FROM seen').get() as { n: number }).n).toBe(40);
    // 16 MB per batch: 40 MB takes three.
    expect(batches).toBe(3);
    stores.readmodels.close();
    await log.close();
  });
});
