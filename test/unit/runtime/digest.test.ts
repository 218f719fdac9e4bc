import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/read-models';
import { openSqlite } from '../../../src/adapters/sqlite/open';
import { digestProjection } from '../../../src/runtime/digest';
import { QUARANTINE_SCHEMA } from '../../../src/runtime/quarantine';
import type { TableSchema } from '../../../src/store/sql';
import { tempDir } from '../../support/temp-dir';

const A: TableSchema = { name: 'digest_a', columns: { id: 'integer', body: 'text?' }, primaryKey: ['id'], orderBy: 'id' };
const B: TableSchema = { name: 'digest_b', columns: { k: 'text', n: 'integer' }, primaryKey: ['k'], orderBy: 'k' };

async function storeWith(aRows: [number, string | null][], bRows: [string, number][], quarantined: unknown[][] = []) {
  const db = openSqlite(join(tempDir('digest-'), 'models.sqlite'));
  const store = new SqliteReadModelStore(db);
  await store.transaction(async (tx) => {
    await tx.createTables([A, B, QUARANTINE_SCHEMA]);
    for (const r of aRows) await tx.run('INSERT INTO digest_a (id, body) VALUES (?, ?)', ...r);
    for (const r of bRows) await tx.run('INSERT INTO digest_b (k, n) VALUES (?, ?)', ...r);
    for (const q of quarantined) await tx.run(`INSERT INTO ${QUARANTINE_SCHEMA.name} (projection, position, part, stream_id, event_type, project_id, recorded_at, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, ...(q as never[]));
  });
  const digest = () => store.transaction((tx) => digestProjection(tx, { name: 'p', tables: [A, B] }));
  return { digest, close: () => db.close() };
}

/** The plain definition: sha256 of each table's name line and its rows as JSON lines, in order, then any quarantines. */
function reference(aRows: unknown[][], bRows: unknown[][], quarantined: unknown[][] = []): string {
  let text = `table digest_a\n${aRows.map((r) => `${JSON.stringify(r)}\n`).join('')}table digest_b\n${bRows.map((r) => `${JSON.stringify(r)}\n`).join('')}`;
  if (quarantined.length) text += `table ${QUARANTINE_SCHEMA.name}\n${quarantined.map((r) => `${JSON.stringify(r)}\n`).join('')}`;
  return createHash('sha256').update(text).digest('hex');
}

describe('digestProjection', () => {
  it('is the sha256 of every table in its declared order, inserted in any order, also past the 64 KiB hashing pieces', async () => {
    const a: [number, string | null][] = Array.from({ length: 3000 }, (_, i) => [i, i % 5 ? `row ${i} ${'x'.repeat(40)}` : null]);
    const b: [string, number][] = [['k2', 2], ['k1', 1]];
    const s = await storeWith([...a].reverse(), b);
    expect(await s.digest()).toBe(reference(a, [['k1', 1], ['k2', 2]]));
    s.close();
    const empty = await storeWith([], []);
    expect(await empty.digest()).toBe(reference([], []));
    empty.close();
  });

  it('a changed value changes it; quarantines of this projection count, another projection\'s do not', async () => {
    const a: [number, string | null][] = [[1, 'one']];
    const base = await storeWith(a, []);
    const changed = await storeWith([[1, 'onE']], []);
    expect(await changed.digest()).not.toBe(await base.digest());
    const q = [['p', 7, null, 'stream', 'T', 1, '2024-01-01', 'bad'], ['other', 8, null, 's', 'T', 1, '2024-01-01', 'x']];
    const withQ = await storeWith(a, [], q);
    expect(await withQ.digest()).toBe(reference(a, [], [[7, null, 'stream', 'T', 1, '2024-01-01', 'bad']]));
    for (const s of [base, changed, withQ]) s.close();
  });
});
