import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { verifyChain } from '../../../src/app/verify-chain';
import { tempDir } from '../../support/temp-dir';

const ctx = { context: { actor: { type: 'system' as const }, projectId: 1 } };

/**
 * verify hashes the texts the SQLite log stores (readChained) and decodes a record only when they do
 * not hash to its hash: its verdicts must stay those of hashing each record decoded and encoded again.
 */
describe('hash chain over the stored texts (SQLite)', () => {
  async function threeRecords() {
    const path = join(tempDir('chain-texts-'), 'events.sqlite');
    const log = new SqliteEventLog(path);
    for (let n = 1; n <= 3; n++) await log.append('s', [{ type: 'Tested', data: { n, text: 'é ✓ 𝄞' } }], ctx);
    return { log, db: new Database(path) };
  }

  it('a record stored in another encoding of the same value still passes, as when it was decoded', async () => {
    const { log, db } = await threeRecords();
    db.prepare('UPDATE events SET data = ?, actor = ? WHERE position = 2').run('{ "n" : 2, "text": "\\u00e9 ✓ 𝄞" }', '{ "type": "system" }');
    expect(await verifyChain(log)).toMatchObject({ ok: true, checked: 3, failure: null });
    db.prepare('UPDATE events SET data = ? WHERE position = 2').run('{ "n" : 20, "text": "é ✓ 𝄞" }');
    expect((await verifyChain(log)).failure).toMatchObject({ position: 2, reason: expect.stringMatching(/changed/) });
    db.close();
    await log.close();
  });

  it('a record whose text is no longer JSON is named, not thrown', async () => {
    const { log, db } = await threeRecords();
    db.prepare('UPDATE events SET data = ? WHERE position = 3').run('{"n":3,');
    expect((await verifyChain(log)).failure).toMatchObject({ position: 3, reason: expect.stringMatching(/changed/) });
    db.close();
    await log.close();
  });
});
