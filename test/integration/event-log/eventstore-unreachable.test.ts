import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EventStoreEventLog } from '../../../src/adapters/eventstore';
import { WrongExpectedRevisionError } from '../../../src/store/event-log';
import { StorageUnavailableError } from '../../../src/store/storage-fault';
import { cliArgs, repoRoot, runBuilt } from '../../support/child';
import { tempDir } from '../../support/temp-dir';
import { TEST_SECRET_KEY } from '../../support/secret-key';

/** Nothing listens on loopback port 1: the real client meets a refused connection, as with a server that is down. */
const DOWN = 'esdb://127.0.0.1:1?tls=false';
const ctx = { context: { actor: { type: 'system' as const } } };

describe('EVENT_LOG=esdb://… at start-up (as the PostgreSQL log: one line, exit 2)', () => {
  it('a server out of reach is one line and exit 2, without the password, and DATA_DIR is not claimed', async () => {
    const dataDir = tempDir('esdb-down-');
    const child = runBuilt({ DATA_DIR: dataDir, PORT: '0', SECRET_KEY: TEST_SECRET_KEY, EVENT_LOG: 'esdb://ops:hunter2@127.0.0.1:1?tls=false' });
    expect(await child.exited).toBe(2);
    expect(child.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^EVENT_LOG esdb:\/\/ops:\*\*\*@127\.0\.0\.1:1\?tls=false: cannot reach KurrentDB \(.*ECONNREFUSED/)]);
    expect(child.stderr()).not.toContain('hunter2');
    expect(existsSync(join(dataDir, 'event-log.json'))).toBe(false);
  });

  it('a connection string the client cannot read is one line and exit 2, for the server and the CLI alike', async () => {
    const env = { DATA_DIR: tempDir('esdb-bad-'), PORT: '0', SECRET_KEY: TEST_SECRET_KEY, EVENT_LOG: 'kurrentdb://127.0.0.1:2113?tls=maybe' };
    const child = runBuilt(env);
    expect(await child.exited).toBe(2);
    expect(child.stderr().trim().split('\n')).toEqual([expect.stringMatching(/^EVENT_LOG kurrentdb:\/\/127\.0\.0\.1:2113\?tls=maybe: Unexpected "maybe"/)]);
    const cli = spawnSync(process.execPath, cliArgs(['keys', 'list']), { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
    expect(cli.status, cli.stderr).toBe(2);
    expect(cli.stderr).toMatch(/EVENT_LOG kurrentdb:\/\/127\.0\.0\.1:2113\?tls=maybe: Unexpected "maybe"/);
  });
});

describe('the KurrentDB log with its server out of reach while serving', () => {
  it('fails every operation with StorageUnavailableError (503 storage_log_unreachable), acknowledges nothing, and reports the fault', async () => {
    const log = EventStoreEventLog.connect({ connection: DOWN, pollIntervalMs: 20 });
    try {
      expect(log.storage.fault()).toBeNull();
      const append = log.append('s', [{ type: 'Tested', data: { n: 1 } }], { ...ctx, expectedRevision: 'no_stream' });
      await expect(append).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(append).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
      // The body the HTTP layer answers a refused write with, status 503.
      const err = (await append.catch((e: unknown) => e)) as StorageUnavailableError;
      expect(err.status).toBe(503);
      expect(err.toBody()).toEqual({ type: 'server_error', code: 'storage_log_unreachable', detail: expect.any(String), attr: null });
      expect(log.storage.fault()).toMatchObject({ reason: 'log_unreachable' });
      for (const read of [() => log.readAll(), () => log.readAll({ afterPosition: 1234 }), () => log.readStream('s'), () => log.head()]) {
        await expect(read()).rejects.toMatchObject({ fault: { reason: 'log_unreachable' } });
      }
    } finally {
      await log.close();
    }
  });

  it('keeps a live subscription waiting through the outage (it polls) rather than failing it, and completes it on close', async () => {
    const log = EventStoreEventLog.connect({ connection: DOWN, pollIntervalMs: 20 });
    let failed: unknown = null;
    const all = firstValueFrom(log.subscribeBatches({}).pipe(toArray())).catch((e: unknown) => (failed = e));
    // A few polls meet the refused connection.
    await new Promise((r) => setTimeout(r, 300));
    expect(log.storage.fault()).toMatchObject({ reason: 'log_unreachable' });
    await log.close();
    expect(await all).toEqual([]);
    expect(failed).toBeNull();
  });
});
