import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../../../src/adapters/postgres/event-log';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { verifyChain } from '../../../src/app/verify-chain';
import type { EventLog } from '../../../src/store/event-log';
import { chainHash } from '../../../src/store/hash-chain';
import { reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { tempDir } from '../../support/temp-dir';

/**
 * The four tamperings of the issue, made directly in the database, on each engine that stores the
 * chain; verify must name the first bad position. Positions here are 1..6 (both engines number a
 * fresh log densely), so the expected positions are plain numbers.
 */
interface Engine {
  open(): Promise<{ log: EventLog; sql: (text: string) => Promise<void>; insertForged: (position: number, hash: string, recordedAt: string) => Promise<void> }>;
  /** A log created before the chain existed (no hash column), holding two records. */
  openLegacy(): Promise<EventLog>;
}

const ctx = { context: { actor: { type: 'system' as const }, projectId: 1 } };

async function sixRecords(log: EventLog) {
  for (let n = 1; n <= 6; n++) await log.append(n % 2 ? 'odd' : 'even', [{ type: 'Tested', data: { n } }], ctx);
  const all = await log.readAll();
  expect(all.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6]);
  return all;
}

const LEGACY_COLUMNS = `position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL, schema_version INTEGER NOT NULL,
  data TEXT NOT NULL, event_id TEXT NOT NULL, recorded_at TEXT NOT NULL, project_id INTEGER, actor TEXT NOT NULL, causation_id TEXT, correlation_id TEXT`;
const LEGACY_ROWS = `(1, 'old', 0, 'Tested', 1, '{"n":0}', 'e0', '2025-01-01T00:00:00.000Z', 1, '{"type":"system"}', NULL, NULL),
  (2, 'old', 1, 'Tested', 1, '{"n":1}', 'e1', '2025-01-01T00:00:00.000Z', 1, '{"type":"system"}', NULL, NULL)`;

const sqlite: Engine = {
  async open() {
    const path = join(tempDir('chain-tamper-'), 'events.sqlite');
    const log = new SqliteEventLog(path);
    const db = new Database(path);
    return {
      log,
      sql: async (text) => void db.exec(text),
      insertForged: async (position, hash, recordedAt) =>
        void db
          .prepare(`INSERT INTO events VALUES (?, 'forged', 0, 'Tested', 1, '{"n":99}', 'forged-1', ?, 1, '{"type":"system"}', NULL, NULL, ?)`)
          .run(position, recordedAt, hash),
    };
  },
  async openLegacy() {
    const path = join(tempDir('chain-legacy-'), 'events.sqlite');
    const db = new Database(path);
    db.exec(`CREATE TABLE events (${LEGACY_COLUMNS}); INSERT INTO events VALUES ${LEGACY_ROWS};`);
    db.close();
    return new SqliteEventLog(path);
  },
};

const USER = await reachablePgUser();
const schemas = USER ? pgSchemas(USER, 'chain_tamper') : null;
const clients: pg.Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.end();
  await schemas?.dropAll();
});

const postgres: Engine = {
  async open() {
    const schema = schemas!.fresh();
    const log = await PostgresEventLog.open({ connection: schemas!.connection, schema });
    const client = new pg.Client(schemas!.connection);
    await client.connect();
    clients.push(client);
    await client.query(`SET search_path TO "${schema}"`);
    return {
      log,
      sql: async (text) => void (await client.query(text)),
      insertForged: async (position, hash, recordedAt) =>
        void (await client.query(`INSERT INTO events VALUES ($1, 'forged', 0, 'Tested', 1, '{"n":99}', 'forged-1', $2, 1, '{"type":"system"}', NULL, NULL, $3)`, [position, recordedAt, hash])),
    };
  },
  async openLegacy() {
    const schema = schemas!.fresh();
    const client = new pg.Client(schemas!.connection);
    await client.connect();
    await client.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".events (${LEGACY_COLUMNS.replace(/INTEGER/g, 'bigint')}); INSERT INTO "${schema}".events VALUES ${LEGACY_ROWS};`);
    await client.end();
    return PostgresEventLog.open({ connection: schemas!.connection, schema });
  },
};

describe('PostgreSQL availability for the chain tamper tests', () => {
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => expect(USER).not.toBeNull());
});

for (const [name, engine] of [['SQLite', sqlite], ...(USER ? [['PostgreSQL', postgres] as const] : [])] as const) {
  describe(`hash chain on ${name}: verify finds each tampering`, () => {
    it('passes an untouched log', async () => {
      const { log } = await engine.open();
      const all = await sixRecords(log);
      const report = await verifyChain(log);
      expect(report).toMatchObject({ ok: true, checked: 6, chainStart: 1, unchained: null, failure: null, head: { position: 6, hash: all[5].hash } });
      await log.close();
    });

    it('a byte changed in a record: that record', async () => {
      const { log, sql } = await engine.open();
      await sixRecords(log);
      await sql(`UPDATE events SET data = '{"n":8}' WHERE position = 3`);
      expect((await verifyChain(log)).failure).toMatchObject({ position: 3, reason: expect.stringMatching(/changed/) });
      await log.close();
    });

    it('a record deleted: the record after it', async () => {
      const { log, sql } = await engine.open();
      await sixRecords(log);
      await sql('DELETE FROM events WHERE position = 3');
      expect((await verifyChain(log)).failure?.position).toBe(4);
      await log.close();
    });

    it('two records swapped: the first of them', async () => {
      const { log, sql } = await engine.open();
      await sixRecords(log);
      await sql('UPDATE events SET position = -3 WHERE position = 3');
      await sql('UPDATE events SET position = 3 WHERE position = 4');
      await sql('UPDATE events SET position = 4 WHERE position = -3');
      expect((await verifyChain(log)).failure?.position).toBe(3);
      await log.close();
    });

    it('a record inserted with a well-formed hash: the record after it', async () => {
      const { log, sql, insertForged } = await engine.open();
      const all = await sixRecords(log);
      for (const p of [6, 5, 4]) await sql(`UPDATE events SET position = ${p + 1} WHERE position = ${p}`);
      // The forger knows the algorithm and links the new record onto record 3 correctly.
      const recordedAt = all[2].metadata.recordedAt;
      const hash = chainHash(all[2].hash!, {
        streamId: 'forged', revision: 0, type: 'Tested', schemaVersion: 1, dataText: '{"n":99}', eventId: 'forged-1',
        recordedAt, projectId: 1, actorText: '{"type":"system"}', causationId: null, correlationId: null,
      });
      await insertForged(4, hash, recordedAt);
      expect((await verifyChain(log)).failure?.position).toBe(5);
      await log.close();
    });

    it('a record rewritten with every later hash recomputed: only the signed checkpoint shows it', async () => {
      const { log, sql } = await engine.open();
      const all = await sixRecords(log);
      const checkpoint = { position: 6, hash: all[5].hash!, signedAt: '2026-11-29T00:00:00.000Z' };
      await sql(`UPDATE events SET data = '{"n":8}' WHERE position = 3`);
      let prev = all[1].hash!;
      for (const e of all.slice(2)) {
        prev = chainHash(prev, { streamId: e.streamId, revision: e.revision, type: e.type, schemaVersion: 1, dataText: e.position === 3 ? '{"n":8}' : JSON.stringify(e.data), eventId: e.metadata.eventId, recordedAt: e.metadata.recordedAt, projectId: 1, actorText: '{"type":"system"}', causationId: null, correlationId: null });
        await sql(`UPDATE events SET hash = '${prev}' WHERE position = ${e.position}`);
      }
      expect((await verifyChain(log)).ok).toBe(true);
      const report = await verifyChain(log, { checkpoint });
      expect(report.failure).toMatchObject({ position: 6, reason: expect.stringMatching(/signed/) });
      // From the checkpoint on, an append chains from the rewritten head: checked since the checkpoint, the first new record breaks.
      await log.append('odd', [{ type: 'Tested', data: { n: 7 } }], ctx);
      expect((await verifyChain(log, { checkpoint, sinceCheckpoint: true })).failure?.position).toBe(7);
      await log.close();
    });

    it('a log made before the chain: upgraded in place, the chain starts at its first new record', async () => {
      const log = await engine.openLegacy();
      expect(await log.chainHead()).toEqual({ position: 2, hash: null });
      const before = await verifyChain(log);
      expect(before).toMatchObject({ ok: true, unchained: { count: 2, lastPosition: 2 }, chainStart: null, checked: 0 });
      await log.append('new', [{ type: 'Tested', data: { n: 2 } }, { type: 'Tested', data: { n: 3 } }], ctx);
      const all = await log.readAll();
      expect(all.map((e) => e.hash === undefined)).toEqual([true, true, false, false]);
      const after = await verifyChain(log);
      expect(after).toMatchObject({ ok: true, unchained: { count: 2, lastPosition: 2 }, chainStart: 3, checked: 2, head: { position: 4, hash: all[3].hash } });
      await log.close();
    });
  });
}

