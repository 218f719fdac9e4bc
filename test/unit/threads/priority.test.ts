import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startTsWorker } from '../../../src/threads';

const linux = existsSync('/proc/thread-self');

async function niceInWorker(nice: number): Promise<{ applied: boolean; tid: number; nice: number }> {
  const worker = startTsWorker(new URL('../../support/children/nice-thread.ts', import.meta.url), { nice });
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe.runIf(linux)('projection thread priority', () => {
  it('lowers only the calling thread, not the process', async () => {
    const before = getPriority();
    const reported = await niceInWorker(7);
    expect(reported.applied).toBe(true);
    expect(reported.tid).not.toBe(process.pid);
    expect(reported.nice).toBe(7);
    expect(getPriority()).toBe(before);
    expect(getPriority(process.pid)).toBe(before);
  });

  it('leaves the thread alone at 0 and caps at 19', async () => {
    const base = getPriority();
    expect(await niceInWorker(0)).toMatchObject({ applied: false, nice: base });
    expect(await niceInWorker(40)).toMatchObject({ applied: true, nice: 19 });
  });
});
