import { LeaseAbortedError, type Lease, type Leases } from '../../store/leases';

/**
 * Leases for the embedded deployment: one process owns its data directory, so a lease only has to
 * exclude other holders in this process. Never lost.
 */
export class InProcessLeases implements Leases {
  private readonly holders = new Map<string, Promise<void>>();

  async acquire(name: string, { signal }: { signal?: AbortSignal } = {}): Promise<Lease> {
    for (;;) {
      if (signal?.aborted) throw new LeaseAbortedError(name);
      const current = this.holders.get(name);
      if (!current) break;
      await Promise.race([current, new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }))]);
    }
    let release: () => void = () => {};
    const done = new Promise<void>((resolve) => (release = resolve));
    this.holders.set(name, done);
    let released = false;
    return {
      name,
      lost: new Promise<Error>(() => {}),
      release: async () => {
        if (released) return;
        released = true;
        this.holders.delete(name);
        release();
      },
    };
  }

  async close(): Promise<void> {}
}
