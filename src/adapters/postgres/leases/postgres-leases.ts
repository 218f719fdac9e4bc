import { createHash } from 'node:crypto';
import pg from 'pg';
import { LeaseAbortedError, type Lease, type Leases } from '../../../store/leases';

export interface PostgresLeaseOptions {
  connection: string | pg.ClientConfig;
  /** Namespaces the lock keys, so two deployments sharing a database do not exclude each other. */
  namespace: string;
  /** How often a waiter tries again. */
  retryMs?: number;
  /** How often a holder checks that its connection is alive. */
  heartbeatMs?: number;
}

/**
 * Leases as session-level advisory locks, each on a connection of its own: the server releases the
 * lock when that connection ends, which it does when the holding process dies (its socket closes),
 * so a waiter in another process takes over at its next try. A holder that loses its connection
 * learns it through `lost` (from the heartbeat or the client's error) and must stop the role.
 */
export class PostgresLeases implements Leases {
  private readonly held = new Set<() => Promise<void>>();

  constructor(private readonly options: PostgresLeaseOptions) {}

  async acquire(name: string, { signal }: { signal?: AbortSignal } = {}): Promise<Lease> {
    const key = createHash('sha256').update(`lease:${this.options.namespace}:${name}`).digest().readBigInt64BE(0).toString();
    const retryMs = this.options.retryMs ?? 500;
    for (;;) {
      if (signal?.aborted) throw new LeaseAbortedError(name);
      const client = this.client();
      try {
        await client.connect();
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
        // The lock is held for as long as this connection lives.
        if (rows[0].ok) return this.hold(name, client);
      } catch {
        // The server is unreachable: wait and try again, as while another process holds the lease.
      }
      await client.end().catch(() => undefined);
      await sleep(retryMs, signal);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.held].map((release) => release()));
  }

  private client(): pg.Client {
    const base = typeof this.options.connection === 'string' ? { connectionString: this.options.connection } : this.options.connection;
    return new pg.Client({ connectionTimeoutMillis: 5000, keepAlive: true, ...base });
  }

  private hold(name: string, client: pg.Client): Lease {
    let settle: (err: Error) => void = () => {};
    const lost = new Promise<Error>((resolve) => (settle = resolve));
    let released = false;
    const drop = (err: Error) => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      this.held.delete(release);
      client.end().catch(() => undefined);
      settle(err);
    };
    client.on('error', (err) => drop(err));
    client.on('end', () => drop(new Error(`the connection holding the lease ${name} ended`)));
    const heartbeat = setInterval(() => {
      client.query('SELECT 1').catch((err: Error) => drop(err));
    }, this.options.heartbeatMs ?? 1000);
    heartbeat.unref();
    const release = async () => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      this.held.delete(release);
      // Ending the session releases its advisory locks.
      await client.end().catch(() => undefined);
    };
    this.held.add(release);
    return { name, lost, release };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
