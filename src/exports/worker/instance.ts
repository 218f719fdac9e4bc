import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * Who runs an attempt, recorded as the `workerId` of its RunStarted:
 * `<installation>/<host>/<pid>/<start nonce>`. The installation id is stable (kept in the data
 * directory), so a worker that starts again recognises the runs an earlier start of itself
 * left Running, and takes them over at once instead of waiting for their lease to end.
 */
export interface WorkerInstance {
  installation: string;
  host: string;
  pid: number;
  nonce: string;
  /** The recorded form. */
  id: string;
}

const ID_FILE = 'export-worker-id';

/** Nonces of the workers alive in this process: an attempt of one of them is never taken over. */
const LIVE_NONCES = new Set<string>();

/**
 * The id kept in the data directory. When it cannot be kept (read-only or damaged directory) this
 * start gets an id of its own: nothing is taken over early, the lease still applies.
 */
function installationId(dataDir: string): string {
  const path = join(dataDir, ID_FILE);
  try {
    writeFileSync(path, `${randomUUID()}\n`, { flag: 'wx' });
  } catch {
    // Already there (the usual case), or not writable: read below.
  }
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (/^[0-9a-f-]{36}$/.test(id)) return id;
  } catch {
    // unreadable: fall through
  }
  return randomUUID();
}

/** A new start of this installation's worker (one per process start). */
export function workerInstance(dataDir: string): WorkerInstance {
  const installation = installationId(dataDir);
  const host = hostname().replace(/\//g, '_') || 'localhost';
  const nonce = randomUUID();
  LIVE_NONCES.add(nonce);
  return { installation, host, pid: process.pid, nonce, id: `${installation}/${host}/${process.pid}/${nonce}` };
}

/** The worker stopped: its attempts are over (or were left for retry), none is running. */
export function retireInstance(instance: WorkerInstance): void {
  LIVE_NONCES.delete(instance.nonce);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `workerId` names an earlier start of `me` that is certainly gone: same installation and
 * host, another start, and its process no longer alive (or, with the same pid, as after a
 * container restart, a start this process does not run). Anything uncertain (another host, a
 * reused pid) is left to the lease.
 */
export function isAbandonedByEarlierStart(me: WorkerInstance, workerId: string | null): boolean {
  if (workerId === null) return false;
  const [installation, host, pidText, nonce, extra] = workerId.split('/');
  if (extra !== undefined || installation !== me.installation || host !== me.host || nonce === undefined || nonce === me.nonce) return false;
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  return pid === me.pid ? !LIVE_NONCES.has(nonce) : !processAlive(pid);
}
