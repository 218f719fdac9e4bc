import { describe, expect, it } from 'vitest';
import { isUnreachable } from '../../../src/adapters/postgres/event-log/reachability';
import { ReachabilityMonitor } from '../../../src/store/reachability-monitor';
import { StorageUnavailableError } from '../../../src/store/storage-fault';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('PostgreSQL reachability', () => {
  it('tells a server out of reach from a statement that failed', () => {
    for (const err of [pgError('ECONNREFUSED'), pgError('ECONNRESET'), pgError('57P01'), pgError('08006'), pgError('53300'), new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect')]) {
      expect(isUnreachable(err), String(err)).toBe(true);
    }
    for (const err of [pgError('23505'), pgError('42P01'), pgError('40001'), new Error('event log appends need READ COMMITTED'), null, 'text']) {
      expect(isUnreachable(err), String(err)).toBe(false);
    }
  });

  it('remembers the last unreachable operation as log_unreachable until one succeeds; other errors pass through unchanged', async () => {
    const monitor = new ReachabilityMonitor(isUnreachable);
    expect(monitor.fault()).toBeNull();
    const down = monitor.run(() => Promise.reject(pgError('ECONNREFUSED')));
    await expect(down).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(down).rejects.toMatchObject({ fault: { reason: 'log_unreachable' } });
    expect(monitor.fault()).toMatchObject({ reason: 'log_unreachable', detail: expect.any(String) });
    const conflict = pgError('23505');
    await expect(monitor.run(() => Promise.reject(conflict))).rejects.toBe(conflict);
    expect(monitor.fault()).toMatchObject({ reason: 'log_unreachable' });
    expect(await monitor.run(async () => 7)).toBe(7);
    expect(monitor.fault()).toBeNull();
  });
});
