import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntimeOn, type Runtime } from '../../../src/app';
import { bootstrapIfEmpty } from '../../../src/app/first-start';
import { openLeases } from '../../../src/app/leases';
import { startProjections } from '../../../src/app/start-projections';
import { parseEventLog } from '../../../src/config/event-log';
import { runBuilt } from '../../support/child';
import { json } from '../../support/json';
import { PG_DATABASE, PG_HOST, PG_PORT, reachablePgUser } from '../../support/postgres';
import { pgSchemas } from '../../support/postgres-schema';
import { TEST_SECRET_KEY } from '../../support/secret-key';
import { tempDir } from '../../support/temp-dir';

const USER = await reachablePgUser();

describe('PostgreSQL availability', () => {
  // Locally a missing server skips the suite; in CI it must fail, never skip silently.
  it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
    expect(USER, `PostgreSQL at ${PG_HOST}:${PG_PORT}/${PG_DATABASE} is unreachable`).not.toBeNull();
  });
});

interface Credentials {
  organization_id: string;
  personal_api_key: string;
}

if (USER !== null) {
  const schemas = pgSchemas(USER, 'first_start_test');
  afterAll(() => schemas.dropAll());

  describe('first start of several processes on one PostgreSQL log, each with its own read models', () => {
    const eventLogUrl = () => `postgres://${USER}@${PG_HOST}:${PG_PORT}/${PG_DATABASE}?schema=${schemas.fresh()}`;

    /** Two runtimes on one empty log, each folding into read models of its own, looking for an organization at once. */
    async function bootstrapTogether(withLeases: boolean) {
      const choice = parseEventLog(eventLogUrl());
      if ('error' in choice) throw new Error(choice.error);
      const runtimes: Runtime[] = [];
      const leases = await Promise.all([0, 1].map(() => openLeases(choice, { kind: 'sqlite' })));
      try {
        for (const _ of leases) {
          const runtime = await openRuntimeOn(choice, { dataDir: tempDir('first-start-') });
          runtimes.push(runtime);
          await startProjections(runtime, { catchUp: false });
        }
        // Settled, not awaited: without the lease the loser may also fail midway (the organization it
        // reads back first is the other's, whose project it has not folded yet).
        const settled = await Promise.allSettled(runtimes.map((runtime, i) => bootstrapIfEmpty(runtime, withLeases ? leases[i] : null)));
        const created = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
        await Promise.all(runtimes.map((runtime) => runtime.runner.catchUp()));
        const organizations = runtimes.map((runtime) => runtime.stores!.readmodels.prepare('SELECT id FROM organizations ORDER BY id').all() as { id: string }[]);
        return { created: created.filter((c) => c !== null), failed: settled.length - created.length, organizations };
      } finally {
        for (const runtime of runtimes) await runtime.close();
        for (const l of leases) await l.close();
      }
    }

    it('without the lease both would create an organization (the race the lease closes)', async () => {
      const { organizations } = await bootstrapTogether(false);
      expect(organizations.map((o) => o.length)).toEqual([2, 2]);
    });

    it('with the lease one creates it and the other finds it', async () => {
      const { created, failed, organizations } = await bootstrapTogether(true);
      expect(failed).toBe(0);
      expect(created).toHaveLength(1);
      expect(organizations.map((list) => list.map((o) => o.id))).toEqual([[created[0]!.organization_id], [created[0]!.organization_id]]);
    });

    // A second process started while the log was empty, whose fold has not yet seen the first
    // process's organization when it takes the lease: it must wait for its fold to reach the head
    // and find that organization, not judge the store empty by its lagging read models.
    it('a second process whose fold lags finds the first one\'s organization instead of creating one', async () => {
      const choice = parseEventLog(eventLogUrl());
      if ('error' in choice) throw new Error(choice.error);
      const leases = await Promise.all([0, 1].map(() => openLeases(choice, { kind: 'sqlite' })));
      const first = await openRuntimeOn(choice, { dataDir: tempDir('first-start-') });
      const second = await openRuntimeOn(choice, { dataDir: tempDir('first-start-') });
      try {
        await startProjections(first, { catchUp: false });
        // The second caught up with the empty log, then its fold stops following it.
        await second.ready;
        await second.runner.catchUp();
        const made = await bootstrapIfEmpty(first, leases[0]);
        expect(made).not.toBeNull();

        // Its fold resumes only once its first start waits for it (or has already decided without it).
        let waiting!: () => void;
        const waits = new Promise<void>((resolve) => (waiting = resolve));
        const waitFor = second.runner.waitFor.bind(second.runner);
        second.runner.waitFor = (...args) => (waiting(), waitFor(...args));
        const found = bootstrapIfEmpty(second, leases[1]);
        await Promise.race([waits, found]);
        second.runner.start();
        expect(await found).toBeNull();

        await Promise.all([first, second].map((runtime) => runtime.runner.catchUp()));
        const organizations = [first, second].map((runtime) => runtime.stores!.readmodels.prepare('SELECT id FROM organizations ORDER BY id').all());
        expect(organizations).toEqual([[{ id: made!.organization_id }], [{ id: made!.organization_id }]]);
      } finally {
        for (const runtime of [first, second]) await runtime.close();
        for (const l of leases) await l.close();
      }
    });

    it('servers started together write one set of credentials, which every one of them accepts', async () => {
      const shared = {
        EVENT_LOG: eventLogUrl(),
        SECRET_KEY: TEST_SECRET_KEY,
        PRINT_CREDENTIALS: 'false',
        LOG_LEVEL: 'info',
        PORT: '0',
        EXPORTS_ENABLED: 'false',
      };
      const dirs = [tempDir('first-start-a-'), tempDir('first-start-b-'), tempDir('first-start-c-')];
      // Started together on an empty log: each would bootstrap alone if it only looked at its own read models.
      const processes = dirs.map((dir) => runBuilt({ ...shared, DATA_DIR: dir }));
      try {
        const urls = await Promise.all(
          processes.map(async (p) => /listening at (http:\/\/[^"\s]+)/.exec(await p.waitForLine((l) => l.includes('Server listening'), 60_000))![1]),
        );
        const written = dirs.map((dir) => join(dir, 'credentials.json')).filter((path) => existsSync(path));
        expect(written).toHaveLength(1);
        const credentials = JSON.parse(readFileSync(written[0], 'utf8')) as Credentials;
        // Each process folds the log into its own read models: the key and the organization reach every one.
        for (const url of urls) {
          const res = await fetch(`${url}/api/organizations/@current/`, { headers: { authorization: `Bearer ${credentials.personal_api_key}` } });
          expect(res.status).toBe(200);
          expect(((await json(res)) as { id: string }).id).toBe(credentials.organization_id);
        }
      } finally {
        for (const p of processes) p.child.kill('SIGTERM');
        await Promise.all(processes.map((p) => p.exited));
      }
    }, 120_000);
  });
}
