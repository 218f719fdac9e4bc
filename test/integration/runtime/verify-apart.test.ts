import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openRuntime, replayApart, verify } from '../../../src/app';
import { tempDir } from '../../support/temp-dir';

const warning = (n: number) => ({ type: 'IngestionWarningRaised' as const, data: { type: 't', source: 'capture', details: { n } } });
const appendWarning = (runtime: ReturnType<typeof openRuntime>, n: number) =>
  runtime.log.append('ingest-1', [warning(n)], { expectedRevision: 'any', context: { actor: { type: 'system' }, projectId: 1 } });
const replayDirs = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('replay-')));

describe("verify's replay on a thread of its own", () => {
  it('replays beside the live catch-up, to the head it was started at, and compares equal', async () => {
    const dir = tempDir('verify-apart-');
    const runtime = openRuntime({ dataDir: dir });
    await appendWarning(runtime, 1);
    const head = await runtime.log.head();
    const result = await verify(runtime, dir);
    expect(result).toMatchObject({ ok: true, head, replay: 'apart' });
    expect(result.rows.every((r) => r.equal && r.position === head)).toBe(true);
    await runtime.close();
  });

  it('a log that moved on after the replay started is replayed again to where the live store stands', async () => {
    const dir = tempDir('verify-moved-');
    const runtime = openRuntime({ dataDir: dir });
    await appendWarning(runtime, 1);
    const replay = await replayApart(runtime, dir);
    // Read by the ingestion projection: a replay stopped at the old head would digest differently.
    await appendWarning(runtime, 2);
    const head = await runtime.log.head();
    expect(head).toBeGreaterThan(replay.head);
    const result = await verify(runtime, dir, { replay });
    expect(result).toMatchObject({ ok: true, replay: 'again' });
    expect(result.rows.find((r) => r.projection === 'ingestion')).toMatchObject({ position: head, equal: true, atHead: true });
    await runtime.close();
  });

  it('cancelled, it leaves neither its store nor a running thread behind', async () => {
    const dir = tempDir('verify-cancel-');
    const runtime = openRuntime({ dataDir: dir });
    const before = replayDirs();
    const replay = await replayApart(runtime, dir);
    const created = [...replayDirs()].filter((name) => !before.has(name));
    expect(created).toHaveLength(1);
    await replay.cancel();
    expect(existsSync(`${tmpdir()}/${created[0]}`)).toBe(false);
    await expect(replay.digests).rejects.toThrow(/exited/);
    // One that has finished (and removed its store itself) cancels quietly.
    const finished = await replayApart(runtime, dir);
    expect((await finished.digests).length).toBeGreaterThan(0);
    await finished.cancel();
    await runtime.close();
  });
});
