import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresLeases } from '../../../src/adapters/postgres/leases';
import { kill9, runTs } from '../../support/child';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { leaseContract } from './contract';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

if (USER !== null) {
  const url = `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}`;
  const fresh = () => `test_${randomBytes(6).toString('hex')}`;

  leaseContract('PostgreSQL advisory locks', async () => {
    const namespace = fresh();
    const a = new PostgresLeases({ connection: url, namespace, retryMs: 50 });
    const b = new PostgresLeases({ connection: url, namespace, retryMs: 50 });
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  });

  describe('PostgreSQL leases when a holder dies', () => {
    it('a process killed with SIGKILL loses the lease to a waiter within seconds', async () => {
      const namespace = fresh();
      const holder = runTs('test/support/children/lease-holder.ts', [url, namespace, 'projections']);
      await holder.waitForLine((l) => l === 'held');
      const leases = new PostgresLeases({ connection: url, namespace, retryMs: 100 });
      const waiting = leases.acquire('projections');
      await new Promise((r) => setTimeout(r, 300));
      const killedAt = Date.now();
      kill9(holder.child);
      await holder.exited;
      const lease = await waiting;
      expect(Date.now() - killedAt).toBeLessThan(3000);
      await lease.release();
      await leases.close();
    });

    it("a holder whose connection is cut learns it through `lost`, and the lease passes on", async () => {
      const namespace = fresh();
      const a = new PostgresLeases({ connection: url, namespace, heartbeatMs: 100 });
      const b = new PostgresLeases({ connection: url, namespace, retryMs: 50 });
      const held = await a.acquire('exports');
      const waiting = b.acquire('exports');
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      // The holder's session is the one holding an advisory lock in this database.
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
        AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())
        AND (classid::bigint << 32 | objid::bigint) IS NOT NULL
        AND pid = ANY (SELECT pid FROM pg_locks l WHERE l.locktype = 'advisory')`);
      await admin.end();
      const err = await held.lost;
      expect(err).toBeInstanceOf(Error);
      const lease = await waiting;
      expect(lease.name).toBe('exports');
      await lease.release();
      await Promise.all([a.close(), b.close()]);
    });
  });
}
