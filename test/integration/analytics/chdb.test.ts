import { afterAll, describe, expect, it } from 'vitest';
import { ChdbConnection } from '../../../src/adapters/clickhouse/chdb/connection';
import { chdbAvailable } from '../../../src/adapters/clickhouse/chdb/module';
import { requireChdbInCi } from '../../support/clickhouse';
import { tempDir } from '../../support/temp-dir';
import { clickhouseSuites } from './clickhouse-suites';

/**
 * The contract on ClickHouse's current engine in this process (chDB, 26.x): the same adapter and
 * SQL as on the 18.16 server, one data directory for the file, a database per test.
 */
const available = await chdbAvailable();
requireChdbInCi(available, 'contract');

if (available) {
  const path = tempDir('chdb-');
  const admin = new ChdbConnection(path);
  afterAll(() => admin.close());
  clickhouseSuites({ name: 'chDB', connect: (database) => new ChdbConnection(path, database), admin });

  describe('chDB in one process', () => {
    it('refuses a second data directory while one is open, with both named', () => {
      const other = tempDir('chdb-other-');
      expect(() => new ChdbConnection(other)).toThrow(new RegExp(`chDB has ${path} open in this process.*not also ${other}`));
    });

    it('runs statements for several databases in the order sent, each in its own database', async () => {
      const [a, b] = ['order_a', 'order_b'].map((db) => new ChdbConnection(path, db));
      try {
        for (const db of ['order_a', 'order_b']) await admin.serverCommand(`CREATE DATABASE IF NOT EXISTS ${db}`);
        await Promise.all([a.command('CREATE TABLE t (x Int64) ENGINE = MergeTree ORDER BY x'), b.command('CREATE TABLE t (x Int64) ENGINE = MergeTree ORDER BY x')]);
        // Sent together: each lands in its connection's database, not the one the session used last.
        await Promise.all([a.insert('t', [{ x: 1 }]), b.insert('t', [{ x: 2 }, { x: 3 }]), a.insert('t', [{ x: 4 }])]);
        const [inA, inB] = await Promise.all([a.rows<{ x: string }>('SELECT x FROM t ORDER BY x'), b.rows<{ x: string }>('SELECT x FROM t ORDER BY x')]);
        // 64-bit integers as JSON strings, as a server answers.
        expect(inA).toEqual([{ x: '1' }, { x: '4' }]);
        expect(inB).toEqual([{ x: '2' }, { x: '3' }]);
      } finally {
        for (const db of ['order_a', 'order_b']) await admin.serverCommand(`DROP DATABASE IF EXISTS ${db}`);
        await a.close();
        await b.close();
      }
    });
  });
}
