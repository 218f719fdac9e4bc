import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAbandonedByEarlierStart, retireInstance, workerInstance } from '../../src/exports/worker/instance';
import { tempDir } from '../support/temp-dir';

describe('export worker instance ids', () => {
  const dataDir = tempDir('instance-');

  it('keeps the installation id in the data directory and gives every start its own nonce', () => {
    const a = workerInstance(dataDir);
    const b = workerInstance(dataDir);
    expect(a.installation).toBe(b.installation);
    expect(readFileSync(join(dataDir, 'export-worker-id'), 'utf8').trim()).toBe(a.installation);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.id).toBe(`${a.installation}/${a.host}/${process.pid}/${a.nonce}`);
    retireInstance(a);
    retireInstance(b);
  });

  it('takes over only from a start that is certainly gone', () => {
    const me = workerInstance(dataDir);
    const other = workerInstance(dataDir);
    // A dead process of this installation on this host: taken over.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(isAbandonedByEarlierStart(me, `${me.installation}/${me.host}/${dead}/n1`)).toBe(true);
    // Alive elsewhere in this process, a live process, another host or installation, itself: left to the lease.
    expect(isAbandonedByEarlierStart(me, other.id)).toBe(false);
    expect(isAbandonedByEarlierStart(me, `${me.installation}/${me.host}/${process.ppid}/n2`)).toBe(false);
    expect(isAbandonedByEarlierStart(me, `${me.installation}/other-host/${dead}/n3`)).toBe(false);
    expect(isAbandonedByEarlierStart(me, `00000000-0000-4000-8000-000000000000/${me.host}/${dead}/n4`)).toBe(false);
    expect(isAbandonedByEarlierStart(me, me.id)).toBe(false);
    expect(isAbandonedByEarlierStart(me, 'worker-0f2c')).toBe(false);
    // Same pid, a start this process no longer runs (a container restart keeps pid 1): taken over.
    retireInstance(other);
    expect(isAbandonedByEarlierStart(me, other.id)).toBe(true);
    retireInstance(me);
  });
});
