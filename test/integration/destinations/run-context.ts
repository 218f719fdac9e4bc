import { tmpdir } from 'node:os';
import type { LogLevel, RunContext } from '../../../src/exports/destinations';
import { exportPolicy } from '../../../src/exports/policy';

/** Files anywhere under the temp directory; the local servers (PostgreSQL, s3rver, receivers) on loopback. */
export const TEST_POLICY = exportPolicy({ dataDir: tmpdir(), fileRoot: tmpdir(), allowedHosts: '127.0.0.0/8,::1' });

export interface TestRunContext extends RunContext {
  logs: { level: LogLevel; message: string }[];
}

/** The run for 2024-01-15 10:00–11:00 UTC, collecting its log lines. */
export function runContext(overrides: Partial<RunContext> = {}): TestRunContext {
  const logs: TestRunContext['logs'] = [];
  return {
    batchExportId: '0190f0e0-0000-7000-8000-00000000be01',
    runId: '0190f0e0-0000-7000-8000-0000000000r1',
    teamId: 1,
    dataIntervalStart: new Date('2024-01-15T10:00:00Z'),
    dataIntervalEnd: new Date('2024-01-15T11:00:00Z'),
    isBackfill: false,
    log: (level, message) => logs.push({ level, message }),
    policy: TEST_POLICY,
    ...overrides,
    logs,
  };
}

export const INTERVAL_BASE = '2024-01-15T10:00:00+00:00-2024-01-15T11:00:00+00:00';

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
