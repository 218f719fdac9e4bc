import { LeaseAbortedError, type Leases } from '../store/leases';

/** A role once started: how to stop it. */
export interface StartedRole {
  stop(): Promise<void>;
}

export interface LeasedRole {
  /** Whether this process holds the lease and runs the role now. */
  readonly holding: boolean;
  /** Stops the role if it runs, releases the lease, and stops waiting for it. */
  stop(): Promise<void>;
}

export interface LeasedRoleEvents {
  onAcquired?: (name: string) => void;
  /** The lease was lost while held (its connection dropped): the role was stopped and the lease is awaited again. */
  onLost?: (name: string, err: Error) => void;
  /** The role failed to start; the lease is released and taken again after a pause. */
  onStartFailed?: (name: string, err: Error) => void;
}

/** Pause after a failed start before taking the lease again (another process may do better meanwhile). */
const RESTART_PAUSE_MS = 1000;

/**
 * Runs a role in this process only while it holds the lease `name`: waits for the lease, starts the
 * role, and when the lease is lost stops the role at once (another process may already run it) and
 * waits for the lease again. So exactly one process of a deployment runs the role, and another takes
 * it over within the lease's retry interval when that process dies.
 */
export function runWhileLeased(leases: Leases, name: string, start: () => Promise<StartedRole>, events: LeasedRoleEvents = {}): LeasedRole {
  const abort = new AbortController();
  let holding = false;
  let stopRequested: () => void = () => {};
  const stopped = new Promise<'stopped'>((resolve) => (stopRequested = () => resolve('stopped')));

  const loop = async () => {
    while (!abort.signal.aborted) {
      let lease;
      try {
        lease = await leases.acquire(name, { signal: abort.signal });
      } catch (err) {
        if (err instanceof LeaseAbortedError) return;
        throw err;
      }
      let role: StartedRole;
      try {
        role = await start();
      } catch (err) {
        await lease.release();
        events.onStartFailed?.(name, err instanceof Error ? err : new Error(String(err)));
        await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, RESTART_PAUSE_MS).unref())]);
        continue;
      }
      holding = true;
      events.onAcquired?.(name);
      const outcome = await Promise.race([stopped, lease.lost]);
      holding = false;
      await role.stop();
      if (outcome === 'stopped') {
        await lease.release();
        return;
      }
      events.onLost?.(name, outcome);
    }
  };
  const done = loop();
  return {
    get holding() {
      return holding;
    },
    async stop() {
      abort.abort();
      stopRequested();
      await done;
    },
  };
}
