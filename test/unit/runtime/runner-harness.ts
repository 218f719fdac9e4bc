import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { RecordedEvent } from '../../../streams';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { ProjectionRunner, type RunnerOptions } from '../../../src/runtime/projection-runner';
import { markStorageFault } from '../../../src/store/storage-fault';
import { tempDir } from '../../support/temp-dir';

/**
 * A projection runner on real files: a SQLite event log and a SQLite read-model store in a temp
 * directory, as the embedded service has them.
 */
export type Noted = { n: number; lane?: string; throws?: string | 'undefined' | 'string' | 'fault'; items?: string[]; long?: boolean };

const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

let files = 0;
export function openFiles(dir = tempDir('runner-unit-')) {
  const n = ++files;
  const log = new SqliteEventLog(join(dir, `log-${n}.sqlite`));
  const db = openSqlite(join(dir, `rm-${n}.sqlite`));
  const store = new SqliteReadModelStore(db);
  closing.push(() => log.close(), () => db.close());
  const note = (data: Noted, type = 'Noted', stream = 'notes') =>
    log.appendSync(stream, [{ type, data }], { context: { actor: { type: 'system' }, projectId: 7 } }).lastPosition;
  const rows = (sql: string, ...params: unknown[]) => db.prepare(sql).all(...params);
  const checkpointRow = (name: string) => db.prepare('SELECT position, version FROM projection_checkpoints WHERE name = ?').get(name);
  const tableExists = (name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  const runner = (projections: ReadModelProjection[], options: RunnerOptions = {}) => {
    const r = new ProjectionRunner(log, { readmodels: store }, projections, options);
    closing.push(() => r.stop());
    return r;
  };
  return { dir, log, db, store, note, rows, checkpointRow, tableExists, runner };
}

/** Throws what the event asks for, after writing its row (so a rollback that does not happen shows). */
export async function misbehave(event: RecordedEvent): Promise<void> {
  const { throws, long } = event.data as Noted;
  if (throws === 'undefined') throw undefined;
  if (throws === 'string') throw 'a bare string';
  if (throws === 'fault') throw markStorageFault(new Error('disk I/O error'));
  if (throws) throw new RangeError(long ? throws.repeat(600) : throws);
}

/** Records each event it applies in `seen` (position, n), in a table named after its version. */
export function recorder(options: Partial<ReadModelProjection> & { table?: string } = {}): ReadModelProjection & { rolledBackCalls: number } {
  const table = options.table ?? 'seen';
  const projection: ReadModelProjection & { rolledBackCalls: number } = {
    name: 'recorder',
    version: 1,
    store: 'readmodels',
    handles: ['Noted'],
    tables: [{ name: table, columns: { position: 'integer', n: 'integer' }, primaryKey: ['position'], orderBy: 'position' }],
    rolledBackCalls: 0,
    async apply(event, db) {
      await db.run(`INSERT INTO ${table} (position, n) VALUES (?, ?)`, event.position, (event.data as Noted).n);
      await misbehave(event);
    },
    rolledBack() {
      projection.rolledBackCalls++;
    },
    ...options,
  };
  return projection;
}

export const until = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
