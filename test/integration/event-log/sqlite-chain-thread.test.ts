import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inlineHashes, type AppendHashes } from '../../../src/adapters/sqlite/append-chain';
import { CHAIN_THREAD_MIN_RECORDS, ChainHasher } from '../../../src/adapters/sqlite/chain-hasher';
import type { ChainRecords } from '../../../src/adapters/sqlite/chain-messages';
import { copyLogUntil } from '../../../src/adapters/sqlite/copy-log';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { CHAIN_START, chainHash, contentOf } from '../../../src/store/hash-chain';
import { tempDir } from '../../support/temp-dir';

const shared = { streamId: 'stream-ü', recordedAt: '2026-11-29T00:00:00.000Z', projectId: 7, actorText: '{"type":"system"}', causationId: null, correlationId: 'c-1' };

/** Records of every shape the chain encodes: types and schema versions that change, non-ASCII text, an id that is no UUID, bytes. */
function records(n: number, seed: number): ChainRecords {
  const r: ChainRecords = { types: [], schemaVersions: [], data: [], eventIds: [] };
  for (let k = 0; k < n; k++) {
    r.types.push(k % 7 === 3 ? 'Other"Type' : 'EventCaptured');
    r.schemaVersions.push(k % 11 === 5 ? 2 : 1);
    const text = JSON.stringify({ k, seed, s: k % 5 === 0 ? 'žluťoučký kůň 🐎 \u2028' : 'plain' });
    r.data.push(k === 9 ? Buffer.from(text, 'utf8') : text);
    r.eventIds.push(k % 13 === 1 ? `id "${k}" ✓` : `0190c5e2-8d7e-7000-8000-${String(seed * 10_000 + k).padStart(12, '0')}`);
  }
  return r;
}

/** The hashes the thread gave for a whole append (a batch it hashed is stored in one row). */
function allOf(hashes: AppendHashes): Buffer {
  if (hashes.kind !== 'append') throw new Error('hashed in line, not on the thread');
  return hashes.all();
}

describe('SQLite log: the chain hashed on its own thread', () => {
  const hasher = new ChainHasher({ stallMs: 50 });
  afterAll(() => hasher.close());

  it('gives the hashes the in-line reference gives, batch after batch', async () => {
    expect(await hasher.warm()).toBe(true);
    let prev = CHAIN_START;
    let revision = 0;
    for (let b = 0; b < 5; b++) {
      const batch = records(CHAIN_THREAD_MIN_RECORDS + b * 37, b);
      const pending = hasher.prepare(shared, batch);
      // The data to insert are the bytes the thread hashes: the same text.
      expect(Buffer.from(pending.stored(9)).toString('utf8')).toBe(Buffer.from(batch.data[9]).toString('utf8'));
      expect(Buffer.isBuffer(pending.stored(0))).toBe(true);
      expect(String(pending.stored(0))).toBe(batch.data[0]);
      const hashes = allOf(pending.start(prev, revision));
      const reference = inlineHashes(prev, shared, batch, revision);
      expect(hashes.equals(reference)).toBe(true);
      pending.cancel();
      prev = reference.toString('hex', reference.length - 32);
      revision += batch.data.length;
    }
  });

  it('a job given up before it starts (a duplicate, a wrong revision) leaves the next one whole, on the thread', async () => {
    expect(await hasher.warm()).toBe(true);
    const before = { ...hasher.counts };
    hasher.prepare(shared, records(100, 1)).cancel();
    const batch = records(100, 2);
    const prev = 'ab'.repeat(32);
    expect(allOf(hasher.prepare(shared, batch).start(prev, 5)).equals(inlineHashes(prev, shared, batch, 5))).toBe(true);
    // The job given up was never hashed: one append on the thread.
    expect(hasher.counts).toEqual({ onThread: before.onThread + 1, lost: before.lost, started: before.started });
  });

  it('before its thread is up a batch is hashed in line; a small one always is', async () => {
    const own = new ChainHasher();
    const first = own.prepare(shared, records(CHAIN_THREAD_MIN_RECORDS, 5));
    expect(typeof first.stored(0)).toBe('string');
    expect(first.start(CHAIN_START, 0).kind).toBe('rows');
    expect(await own.warm()).toBe(true);
    expect(await own.warm()).toBe(true);
    expect(own.counts.started).toBe(1);
    expect(own.prepare(shared, records(CHAIN_THREAD_MIN_RECORDS - 1, 6)).start(CHAIN_START, 0).kind).toBe('rows');
    const batch = own.prepare(shared, records(CHAIN_THREAD_MIN_RECORDS, 7));
    expect(Buffer.isBuffer(batch.stored(0))).toBe(true);
    expect(batch.start(CHAIN_START, 0).kind).toBe('append');
    await own.close();
  });

  it('a job stuck on the thread (never started nor given up): the next append hashes itself after the stall, and the thread is replaced', async () => {
    const own = new ChainHasher({ stallMs: 50 });
    expect(await own.warm()).toBe(true);
    own.prepare(shared, records(100, 8));
    const batch = records(100, 9);
    expect(allOf(own.prepare(shared, batch).start(CHAIN_START, 0)).equals(inlineHashes(CHAIN_START, shared, batch, 0))).toBe(true);
    expect(own.counts).toMatchObject({ lost: 1, started: 1 });
    // The stuck thread is gone: the next batch is hashed in line while a new one starts.
    expect(own.prepare(shared, records(100, 10)).start(CHAIN_START, 0).kind).toBe('rows');
    expect(await own.warm()).toBe(true);
    expect(own.counts.started).toBe(2);
    await own.close();
  });

  it('after three threads lost, no fourth is started: the log hashes in line', async () => {
    const own = new ChainHasher();
    for (let i = 0; i < 3; i++) {
      expect(await own.warm()).toBe(true);
      await own.close();
    }
    expect(await own.warm()).toBe(false);
    expect(own.prepare(shared, records(100, 11)).start(CHAIN_START, 0).kind).toBe('rows');
    expect(own.counts.started).toBe(3);
  });

  it('a log chained before the appends\' rows of hashes (no chain_hashes table) opens read-only with its hashes', async () => {
    const dir = tempDir('log-chain-legacy-');
    const path = join(dir, 'log.sqlite');
    const log = new SqliteEventLog(path);
    await log.append('s', [{ type: 'Noted', data: { i: 1 } }, { type: 'Noted', data: { i: 2 } }], { context: { actor: { type: 'system' } } });
    const written = await log.readAll();
    await log.close();
    const db = new Database(path);
    db.exec('DROP TABLE chain_hashes');
    db.close();
    const old = new SqliteEventLog(path, { readonly: true });
    expect((await old.readAll()).map((e) => e.hash)).toEqual(written.map((e) => e.hash));
    expect(await old.readStream('s')).toHaveLength(2);
    expect((await old.chainHead()).hash).toBe(written[1].hash);
    await old.close();
  });

  it('an append whose thread is gone hashes the rest itself, to the same hashes', async () => {
    const own = new ChainHasher({ stallMs: 50 });
    expect(await own.warm()).toBe(true);
    const batch = records(200, 3);
    const pending = own.prepare(shared, batch);
    await own.close();
    const prev = 'cd'.repeat(32);
    expect(allOf(pending.start(prev, 0)).equals(inlineHashes(prev, shared, batch, 0))).toBe(true);
  });

  it('hashing in line from the middle continues the chain exactly', () => {
    const batch = records(90, 4);
    const whole = inlineHashes(CHAIN_START, shared, batch, 3);
    const part = Buffer.alloc(whole.length);
    whole.copy(part, 0, 0, 40 * 32);
    inlineHashes(whole.toString('hex', 39 * 32, 40 * 32), shared, batch, 3, part, 40);
    expect(part.equals(whole)).toBe(true);
  });

  it('through the log: every record read carries its hash, the head is the last, and a copy cut inside an append keeps its hashes', async () => {
    const dir = tempDir('log-chain-thread-');
    const log = new SqliteEventLog(join(dir, 'log.sqlite'));
    await log.warmChain();
    const ctx = { context: { actor: { type: 'system' as const }, projectId: 1 } };
    await log.append('small', [{ type: 'Noted', data: { i: -1 } }], ctx);
    for (let b = 0; b < 4; b++) {
      await log.append(`s-${b % 2}`, Array.from({ length: 150 }, (_, i) => ({ type: 'Noted', data: { b, i, t: 'ü'.repeat(i % 4) } })), ctx);
    }
    const all = await log.readAll();
    expect(all).toHaveLength(601);
    let prev = CHAIN_START;
    for (const e of all) {
      expect(e.hash).toBe(chainHash(prev, contentOf(e)));
      prev = e.hash!;
    }
    expect(await log.chainHead()).toEqual({ position: 601, hash: prev });
    const stream = await log.readStream('s-1', { fromRevision: 100, maxCount: 3 });
    expect(stream.map((e) => e.hash)).toEqual(all.filter((e) => e.streamId === 's-1').slice(100, 103).map((e) => e.hash));
    // One row of hashes per batch; the small append's hash in its own row.
    const db = new Database(join(dir, 'log.sqlite'), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM chain_hashes').get()).toEqual({ n: 4 });
    expect(db.prepare('SELECT position FROM events WHERE hash IS NOT NULL').all()).toEqual([{ position: 1 }]);
    db.close();
    await log.close();

    copyLogUntil(join(dir, 'log.sqlite'), join(dir, 'copy.sqlite'), 250);
    const copy = new SqliteEventLog(join(dir, 'copy.sqlite'), { readonly: true });
    expect(await copy.chainHead()).toEqual({ position: 250, hash: all[249].hash });
    expect((await copy.readAll()).map((e) => e.hash)).toEqual(all.slice(0, 250).map((e) => e.hash));
    await copy.close();
  });
});
