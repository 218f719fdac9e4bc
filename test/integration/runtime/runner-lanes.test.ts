import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import { inProcessAppendNotifications } from '../../../src/store/append-notifications';
import { tempDir } from '../../support/temp-dir';

type Noted = { lane: string; n: number };

/**
 * A laned fold whose events wait, when told to, until the test lets them go: so the test decides
 * what is in flight when another lane's event arrives.
 */
function gatedProjection(held: Map<string, Promise<void>>, started: (key: string) => void): ReadModelProjection {
  return {
    name: 'laned',
    version: 1,
    store: 'readmodels',
    handles: ['Noted'],
    tables: [{ name: 'seen', columns: { position: 'integer', lane: 'text', n: 'integer' }, primaryKey: ['position'], orderBy: 'position' }],
    lane: (event) => (event.data as Noted).lane,
    async apply(event, db) {
      const { lane, n } = event.data as Noted;
      started(`${lane}${n}`);
      await held.get(`${lane}${n}`);
      await db.run('INSERT INTO seen (position, lane, n) VALUES (?, ?, ?)', event.position, lane, n);
    },
  };
}

const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

function setUp(dir: string, projection: ReadModelProjection) {
  const log = new SqliteEventLog(join(dir, 'log.sqlite'));
  const db = openSqlite(join(dir, 'rm.sqlite'));
  const runner = new ProjectionRunner(log, { readmodels: new SqliteReadModelStore(db) }, [projection], {
    notifications: inProcessAppendNotifications(log),
  });
  opened.push(log, db, { close: () => runner.stop() });
  const note = (lane: string, n: number) => log.appendSync(`notes-${lane}`, [{ type: 'Noted', data: { lane, n } }], { context: { actor: { type: 'system' } } });
  /** The rows, in log order. */
  const seen = () => (db.prepare('SELECT lane, n FROM seen ORDER BY position').all() as Noted[]).map((r) => `${r.lane}${r.n}`);
  return { log, db, runner, note, seen };
}

const deferred = () => {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
};

describe('a laned projection', () => {
  it("applies another lane's event while one lane has a backlog, one event of it later at most, and resumes each lane where it stopped", async () => {
    const dir = tempDir('runner-lanes-');
    const a1 = deferred();
    const started = new Map(['a1', 'b1', 'a2'].map((key) => [key, deferred()]));
    const order: string[] = [];
    // a2 meets a storage fault: the runner stops the projection there, as a crash would.
    const fault = Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }));
    fault.catch(() => undefined);
    const first = setUp(
      dir,
      gatedProjection(new Map([['a1', a1.promise], ['a2', fault]]), (key) => {
        order.push(key);
        started.get(key)?.release();
      }),
    );
    for (let n = 1; n <= 4; n++) first.note('a', n);
    first.runner.start();
    await started.get('a1')!.promise;
    // Lane a is busy with a1 (and holds a2..a4) when b's event is appended.
    first.note('b', 1);
    a1.release();
    await started.get('a2')!.promise;
    await until(() => Object.keys(first.runner.failures()).length > 0);
    expect(order).toEqual(['a1', 'b1', 'a2']);
    // b1 was committed before a2 was tried: the checkpoint stays at a1, lane b is recorded past it.
    expect(first.seen()).toEqual(['a1', 'b1']);
    expect(first.db.prepare('SELECT position FROM projection_checkpoints WHERE name = ?').get('laned')).toEqual({ position: 1 });
    expect(first.db.prepare('SELECT lane, position FROM projection_lanes WHERE name = ?').all('laned')).toEqual([{ lane: 'b', position: 5 }]);
    first.runner.stop();

    // Started again on the same files, it applies a2..a4 and never b1 again (its primary key would
    // refuse a second row, which the runner would quarantine).
    const resumed = new ProjectionRunner(first.log, { readmodels: new SqliteReadModelStore(first.db) }, [
      gatedProjection(new Map(), () => undefined),
    ]);
    await resumed.catchUp();
    expect(resumed.failures()).toEqual({});
    expect(resumed.quarantines().count).toBe(0);
    expect(first.seen()).toEqual(['a1', 'a2', 'a3', 'a4', 'b1']);
    expect(resumed.checkpoints().laned).toBe(5);
    expect(first.db.prepare('SELECT count(*) AS n FROM projection_lanes').get()).toEqual({ n: 0 });
  });
});

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
