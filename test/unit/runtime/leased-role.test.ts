import { describe, expect, it } from 'vitest';
import { InProcessLeases } from '../../../src/adapters/in-process/leases';
import { runWhileLeased } from '../../../src/runtime/leased-role';
import type { Lease, Leases } from '../../../src/store/leases';

/** Resolves once `check` holds (the roles start and stop on their own schedule). */
async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A role that records whether it runs. */
function role(log: string[], name: string) {
  let running = false;
  return {
    get running() {
      return running;
    },
    start: async () => {
      running = true;
      log.push(`${name} started`);
      return {
        stop: async () => {
          running = false;
          log.push(`${name} stopped`);
        },
      };
    },
  };
}

/** In-process leases whose held leases the test can make lost (a dropped connection). */
class LosableLeases implements Leases {
  private readonly inner = new InProcessLeases();
  readonly held: { lease: Lease; lose: (err: Error) => void }[] = [];

  async acquire(name: string, options?: { signal?: AbortSignal }): Promise<Lease> {
    const lease = await this.inner.acquire(name, options);
    let lose: (err: Error) => void = () => {};
    const lost = new Promise<Error>((resolve) => (lose = resolve));
    const losable: Lease = { name, lost, release: () => lease.release() };
    this.held.push({ lease: losable, lose: (err) => void lease.release().then(() => lose(err)) });
    return losable;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('runWhileLeased', () => {
  it('runs a role in one holder at a time; the next one starts when the first stops', async () => {
    const leases = new InProcessLeases();
    const log: string[] = [];
    const a = role(log, 'a');
    const b = role(log, 'b');
    const first = runWhileLeased(leases, 'projections', a.start);
    await until(() => a.running);
    const second = runWhileLeased(leases, 'projections', b.start);
    await new Promise((r) => setTimeout(r, 50));
    expect(b.running).toBe(false);
    expect(first.holding).toBe(true);
    expect(second.holding).toBe(false);
    await first.stop();
    await until(() => b.running);
    expect(log).toEqual(['a started', 'a stopped', 'b started']);
    await second.stop();
    expect(b.running).toBe(false);
  });

  it('stops the role at once when the lease is lost, then takes the lease again and restarts it', async () => {
    const leases = new LosableLeases();
    const log: string[] = [];
    const lost: string[] = [];
    const a = role(log, 'a');
    const leased = runWhileLeased(leases, 'exports', a.start, { onLost: (name, err) => lost.push(`${name}: ${err.message}`) });
    await until(() => a.running);
    leases.held[0].lose(new Error('connection ended'));
    await until(() => log.length === 3);
    expect(log).toEqual(['a started', 'a stopped', 'a started']);
    expect(lost).toEqual(['exports: connection ended']);
    expect(leased.holding).toBe(true);
    await leased.stop();
  });

  it('a role that fails to start gives the lease back, so another holder can run it', async () => {
    const leases = new InProcessLeases();
    const failures: string[] = [];
    const broken = runWhileLeased(
      leases,
      'projections',
      async () => {
        throw new Error('cannot bind');
      },
      { onStartFailed: (name, err) => failures.push(`${name}: ${err.message}`) },
    );
    await until(() => failures.length === 1);
    const log: string[] = [];
    const b = role(log, 'b');
    const healthy = runWhileLeased(leases, 'projections', b.start);
    await until(() => b.running);
    expect(failures[0]).toBe('projections: cannot bind');
    await broken.stop();
    await healthy.stop();
  });

  it('stop() while still waiting for the lease ends the wait without starting the role', async () => {
    const leases = new InProcessLeases();
    const log: string[] = [];
    const holder = runWhileLeased(leases, 'exports', role(log, 'a').start);
    await until(() => holder.holding);
    const waiting = runWhileLeased(leases, 'exports', role(log, 'b').start);
    await waiting.stop();
    await holder.stop();
    expect(log).toEqual(['a started', 'a stopped']);
  });
});
