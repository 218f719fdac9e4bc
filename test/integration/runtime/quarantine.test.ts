import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import { SqliteReadModelStore, sqliteSession } from '../../../src/adapters/sqlite/read-models';
import { ingestionProjection, ingestionQueries } from '../../../projections/ingestion';
import { digestProjection } from '../../../src/runtime/digest';
import { ProjectionRunner } from '../../../src/runtime/projection-runner';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { tempDir } from '../../support/temp-dir';

/** `fault`: the SQLite error code to throw, as better-sqlite3 sets it. */
type Data = { marker?: boolean; items?: string[]; fault?: string };

/** Writes before it throws, so a quarantine that does not roll the event's writes back shows. */
const fragile: ReadModelProjection = {
  name: 'fragile',
  version: 1,
  store: 'readmodels',
  tables: [{ name: 'seen', columns: { position: 'integer', part: 'integer' }, primaryKey: ['position', 'part'], orderBy: 'position, part' }],
  async apply(event, db) {
    const data = event.data as Data;
    if (data.items) {
      for (let i = 0; i < data.items.length; i++) await this.applyPart!(event, i, db);
      return;
    }
    await db.run('INSERT INTO seen (position, part) VALUES (?, -1)', event.position);
    if (data.fault) throw Object.assign(new Error(`storage said ${data.fault}`), { code: data.fault });
    if (data.marker) throw new Error(`marker at ${event.position}`);
  },
  parts: (event) => (event.data as Data).items?.length ?? 0,
  async applyPart(event, index, db) {
    await db.run('INSERT INTO seen (position, part) VALUES (?, ?)', event.position, index);
    if ((event.data as Data).items![index] === 'bad') throw new TypeError(`bad item ${index}`);
  },
};

const append = (log: SqliteEventLog, data: Data) =>
  log.appendSync('ingest-1', [{ type: 'Noted', data }], { context: { actor: { type: 'system' }, projectId: 1 } }).lastPosition;

function open(dir: string, name: string, log: SqliteEventLog, batchSize: number, projections: ReadModelProjection[] = [fragile]) {
  const stores = { readmodels: openSqlite(join(dir, `${name}-rm.sqlite`)), analytics: openSqlite(join(dir, `${name}-an.sqlite`)) };
  const ports = { readmodels: new SqliteReadModelStore(stores.readmodels), analytics: new SqliteReadModelStore(stores.analytics) };
  const runner = new ProjectionRunner(log, ports, projections, { batchSize, notifications: { appended$: log.appends, moved$: log.appends, notify: () => {} } });
  const seen = () => stores.readmodels.prepare('SELECT position, part FROM seen ORDER BY position, part').all();
  const failures = () => stores.readmodels.prepare('SELECT * FROM projection_failures ORDER BY position, part').all();
  const close = () => {
    runner.stop();
    stores.readmodels.close();
    stores.analytics.close();
  };
  return { stores, runner, seen, failures, close, digest: () => digestProjection(ports.readmodels.session, fragile) };
}

describe('a projection that throws on an event quarantines it and goes on', () => {
  it('skips the event (writes rolled back) and the bad part of a record, applies the rest, identically on replay', async () => {
    const dir = tempDir('quarantine-');
    const log = new SqliteEventLog(join(dir, 'log.sqlite'));
    append(log, {});
    const marker = append(log, { marker: true });
    const record = append(log, { items: ['a', 'bad', 'c'] });
    append(log, {});

    // Live: followed in small batches, with a read-your-writes waiter parked on the marker.
    const live = open(dir, 'live', log, 2);
    const waited = live.runner.waitFor(marker);
    live.runner.start();
    await waited;
    const later = append(log, {});
    log.notifyAppended(later);
    await live.runner.waitFor(later);

    expect(live.runner.failures()).toEqual({});
    expect(live.runner.checkpoints().fragile).toBe(later);
    expect(live.seen()).toEqual([
      { position: 1, part: -1 },
      { position: record, part: 0 },
      { position: record, part: 2 },
      { position: 4, part: -1 },
      { position: later, part: -1 },
    ]);
    expect(live.failures()).toEqual([
      expect.objectContaining({ projection: 'fragile', position: marker, part: null, stream_id: 'ingest-1', event_type: 'Noted', project_id: 1, error: `Error: marker at ${marker}` }),
      expect.objectContaining({ projection: 'fragile', position: record, part: 1, stream_id: 'ingest-1', event_type: 'Noted', project_id: 1, error: 'TypeError: bad item 1' }),
    ]);
    expect(live.runner.quarantines()).toMatchObject({ count: 2, latest: [{ position: record, part: 1 }, { position: marker, part: null }] });

    // Replay: one batch over the whole log, a fresh store, the same rows and quarantines.
    const replay = open(dir, 'replay', log, 2000);
    await replay.runner.catchUp();
    expect(replay.failures()).toEqual(live.failures());
    expect(await replay.digest()).toBe(await live.digest());

    // A restart over the live store knows its quarantines and applies what comes next.
    live.close();
    const again = open(dir, 'live', log, 2);
    await again.runner.ready;
    expect(again.runner.quarantines().count).toBe(2);
    const next = append(log, {});
    await again.runner.catchUp();
    expect(again.runner.checkpoints().fragile).toBe(next);
    expect(again.failures()).toHaveLength(2);
    again.close();
    replay.close();
    await log.close();
  });

  it("shows in the project's ingestion warnings, merged with the ingestion fold's own by time", async () => {
    const dir = tempDir('quarantine-warnings-');
    // One second per record, so that the merge by time has a definite answer.
    let second = 0;
    const log = new SqliteEventLog(join(dir, 'log.sqlite'), { now: () => new Date(Date.UTC(2024, 0, 1, 0, 0, second++)) });
    const warning = (type: string) =>
      log.appendSync('ingest-1', [{ type: 'IngestionWarningRaised', data: { type, source: 'capture', details: {} } }], { context: { actor: { type: 'system' }, projectId: 1 } });
    warning('first');
    const marker = append(log, { marker: true });
    warning('last');
    const s = open(dir, 'live', log, 2000, [ingestionProjection, fragile]);
    await s.runner.catchUp();
    const q = ingestionQueries(sqliteSession(s.stores.readmodels));
    const warnings = await q.ingestionWarnings(1, { limit: 10 });
    expect(warnings.map((w) => w.type)).toEqual(['last', 'event_quarantined', 'first']);
    expect(warnings[1]).toMatchObject({ source: 'fragile', details: { position: marker, index: null, eventType: 'Noted', error: `Error: marker at ${marker}` } });
    expect((await q.ingestionWarnings(1, { limit: 1, offset: 1 })).map((w) => w.type)).toEqual(['event_quarantined']);
    expect(await q.ingestionWarnings(2, { limit: 10 })).toEqual([]);
    s.close();
    await log.close();
  });

  // better-sqlite3 reports SQLite's extended codes (SQLITE_BUSY_SNAPSHOT, not SQLITE_BUSY): each
  // still says the store is failing, not the event, so it must stop the projection too.
  it.each(['SQLITE_FULL', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_IOERR_WRITE', 'SQLITE_CORRUPT_INDEX', 'SQLITE_READONLY_DIRECTORY'])(
    'stops on a storage fault (%s) instead of quarantining (the event is not to blame)',
    async (code) => {
      const dir = tempDir('quarantine-fault-');
      const log = new SqliteEventLog(join(dir, 'log.sqlite'));
      append(log, {});
      append(log, { fault: code });
      const s = open(dir, 'live', log, 2000);
      await s.runner.catchUp();
      expect(s.runner.failures()).toEqual({ fragile: `storage said ${code}` });
      expect(s.runner.checkpoints().fragile).toBe(0);
      expect(s.runner.quarantines().count).toBe(0);
      expect(s.failures()).toEqual([]);
      await expect(s.runner.waitFor(2)).rejects.toThrow(/fragile has stopped/);
      s.close();
      await log.close();
    },
  );

  // A bad event fails the batch first, so the runner retries it event by event: the fault met on
  // that path must stop the projection too, taking the bad event's quarantine back with the batch.
  it('stops on a storage fault met while retrying a batch event by event', async () => {
    const dir = tempDir('quarantine-fault-');
    const log = new SqliteEventLog(join(dir, 'log.sqlite'));
    append(log, {});
    append(log, { marker: true });
    append(log, { fault: 'SQLITE_BUSY_SNAPSHOT' });
    const s = open(dir, 'live', log, 2000);
    await s.runner.catchUp();
    expect(s.runner.failures()).toEqual({ fragile: 'storage said SQLITE_BUSY_SNAPSHOT' });
    expect(s.runner.checkpoints().fragile).toBe(0);
    expect(s.runner.quarantines().count).toBe(0);
    expect(s.failures()).toEqual([]);
    s.close();
    await log.close();
  });
});
