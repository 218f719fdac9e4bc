import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { kill9, runTs } from '../../support/child';
import { tempDir } from '../../support/temp-dir';

const dir = tempDir('crash-');

describe('crash safety', () => {
  for (const durability of ['normal', 'strict']) {
    it(`an append that returned survives kill -9 (DURABILITY=${durability})`, async () => {
      const path = join(dir, `append-${durability}.sqlite`);
      const run = runTs('test/support/children/appender.ts', [path, durability]);
      await run.waitForLine((l) => l.startsWith('ack') && Number(l.split(' ')[1]) >= 2000);
      kill9(run.child);
      await run.exited;
      const acked = Math.max(...run.lines.filter((l) => l.startsWith('ack')).map((l) => Number(l.split(' ')[1])));
      const log = new SqliteEventLog(path);
      const head = await log.head();
      expect(head).toBeGreaterThanOrEqual(acked);
      const events = await log.readAll();
      expect(events).toHaveLength(head);
      expect(events.map((e) => (e.data as { n: number }).n)).toEqual(events.map((_, i) => i));
      await log.close();
    });
  }

  it('a projection killed mid-stream resumes exactly where it stopped', async () => {
    const logPath = join(dir, 'p-log.sqlite');
    const storePath = join(dir, 'p-store.sqlite');
    const log = new SqliteEventLog(logPath);
    const total = 6000;
    for (let i = 0; i < total; i += 500)
      await log.append('s', Array.from({ length: 500 }, (_, k) => ({ type: 'Tested', data: { n: i + k } })), {
        context: { actor: { type: 'system' } },
      });
    await log.close();

    const first = runTs('test/support/children/projector.ts', [logPath, storePath]);
    await first.waitForLine((l) => l.startsWith('checkpoint') && Number(l.split(' ')[1]) >= 1000);
    kill9(first.child);
    await first.exited;
    const interrupted = new Database(storePath).prepare('SELECT count(*) AS n FROM applied').get() as { n: number };
    expect(interrupted.n).toBeGreaterThan(0);
    expect(interrupted.n).toBeLessThan(total);

    const second = runTs('test/support/children/projector.ts', [logPath, storePath]);
    const code = await second.exited;
    expect(second.lines).toContain('done');
    expect(code).toBe(0);
    const db = new Database(storePath);
    const rows = db.prepare('SELECT position, n FROM applied ORDER BY position').all() as { position: number; n: number }[];
    expect(rows).toHaveLength(total);
    expect(rows.every((r, i) => r.position === i + 1 && r.n === i)).toBe(true);
    const cp = db.prepare("SELECT position FROM projection_checkpoints WHERE name = 'recorder'").get() as { position: number };
    expect(cp.position).toBe(total);
    db.close();
  });
});
