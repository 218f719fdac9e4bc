import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../../src/adapters/sqlite/checkpointer';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { openLogFromSpec, openSqliteLog } from '../../../src/app/event-log';
import { tempDir } from '../../support/temp-dir';

const dir = tempDir('log-checkpoint-');
const ctx = { context: { actor: { type: 'system' as const } }, expectedRevision: 'any' as const };
const size = (path: string) => statSync(path).size;
const open: SqliteEventLog[] = [];
afterEach(async () => {
  for (const log of open.splice(0)) await log.close();
});

/** 50 events of ~8 KB each: about 100 WAL pages of 4 KB. */
async function appendBurst(log: SqliteEventLog, tag: string) {
  for (let i = 0; i < 50; i++) await log.append(`s-${tag}`, [{ type: 'Noted', data: { i, text: `${tag}-${i}-`.padEnd(8000, 'x') } }], ctx);
}

describe('log checkpoints left to another connection', () => {
  it('appends do not checkpoint below the backstop; the checkpointer thread does, and the WAL is reused', async () => {
    const path = join(dir, 'handoff.sqlite');
    const appender = new SqliteEventLog(path, { backstopCheckpointPages: 1_000_000 });
    const reader = new SqliteEventLog(path);
    open.push(appender, reader);
    const dbBefore = size(path);

    await appendBurst(appender, 'a');
    const walAfterFirst = size(`${path}-wal`);
    expect(walAfterFirst).toBeGreaterThan(400_000);
    // Nothing was copied back: the data lives only in the WAL so far.
    expect(size(path)).toBe(dbBefore);

    const checkpointer = startCheckpointer({ files: [path], periodMs: 20, nice: 0 });
    try {
      const deadline = Date.now() + 10_000;
      while (size(path) <= 400_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await checkpointer.close();
    }
    expect(size(path)).toBeGreaterThan(400_000);

    // The next appends start the WAL over instead of growing it.
    await appendBurst(appender, 'b');
    expect(size(`${path}-wal`)).toBeLessThanOrEqual(walAfterFirst);

    const all = await reader.readAll();
    expect(all).toHaveLength(100);
    expect(all.map((e) => `${e.streamId}:${(e.data as { i: number }).i}`)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => `s-a:${i}`),
      ...Array.from({ length: 50 }, (_, i) => `s-b:${i}`),
    ]);
  });

  it('without a backstop an appender checkpoints by itself (the default every 4000 pages)', async () => {
    const path = join(dir, 'default.sqlite');
    const appender = new SqliteEventLog(path);
    open.push(appender);
    // 4000 pages of 4 KB is ~16 MB: 2,100 events of 8 KB cross it.
    for (let i = 0; i < 2100; i++) await appender.append('s', [{ type: 'Noted', data: { text: ''.padEnd(8000, 'y') } }], ctx);
    expect(size(path)).toBeGreaterThan(10_000_000);
  });

  it("a handle opened from another's spec (the ingest thread's) keeps its backstop: its appends leave the checkpoints to the checkpointer", async () => {
    const path = join(dir, 'from-spec.sqlite');
    const main = openSqliteLog(path, { backstopCheckpointPages: 1_000_000 });
    const thread = (await openLogFromSpec(main.spec)).log;
    open.push(main.log as SqliteEventLog, thread as SqliteEventLog);
    const dbBefore = size(path);
    // Past SQLite's default of 4000 pages (~16 MB), which a handle without the backstop checkpoints at.
    for (let i = 0; i < 2100; i++) await thread.append('s', [{ type: 'Noted', data: { text: ''.padEnd(8000, 'z') } }], ctx);
    expect(size(`${path}-wal`)).toBeGreaterThan(16_000_000);
    expect(size(path)).toBe(dbBefore);
  });

  it('a close awaited last lets the process wait for the thread to stop; a thread that cannot open its file ends the process neither', async () => {
    const module = fileURLToPath(new URL('../../../src/adapters/sqlite/checkpointer/index.ts', import.meta.url));
    const existing = join(dir, 'close.sqlite');
    const log = new SqliteEventLog(existing);
    await log.append('s', [{ type: 'Noted', data: { i: 1 } }], ctx);
    open.push(log);
    for (const file of [existing, join(dir, 'missing.sqlite')]) {
      const script = join(dir, 'close-last.mts');
      writeFileSync(
        script,
        `import { startCheckpointer } from ${JSON.stringify(module)};
        const checkpointer = startCheckpointer({ files: [${JSON.stringify(file)}], periodMs: 50, nice: 0 });
        await checkpointer.close();
        console.log('closed');`,
      );
      const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 });
      // Without: the process ends with the close still pending (exit code 13, an unsettled top-level
      // await), or on the thread's unheard error (SQLITE_CANTOPEN).
      expect({ file, status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() }).toEqual({ file, status: 0, stdout: 'closed', stderr: '' });
    }
  });
});
