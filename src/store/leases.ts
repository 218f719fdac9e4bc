/**
 * The lease port: one holder at a time per name across every process of a deployment, so that a
 * role that must run once (projections, the export scheduler and worker) runs in one process and is
 * taken over within seconds when that process dies.
 */
export interface Lease {
  readonly name: string;
  /**
   * Settles once if the lease is lost while held (the connection that held it dropped): the holder
   * must stop the role at once, since another process may take it over.
   */
  readonly lost: Promise<Error>;
  release(): Promise<void>;
}

export interface Leases {
  /** Waits until this process holds `name`; rejects if `signal` aborts first. */
  acquire(name: string, options?: { signal?: AbortSignal }): Promise<Lease>;
  close(): Promise<void>;
}

export class LeaseAbortedError extends Error {
  constructor(readonly leaseName: string) {
    super(`stopped waiting for the lease ${leaseName}`);
    this.name = 'LeaseAbortedError';
  }
}
