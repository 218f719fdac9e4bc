import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, connect as tcpConnect } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsLayout } from '../../src/adapters/nats/layout';

/** The NATS server with JetStream every machine of this project runs. */
export const LOCAL_NATS_URL = process.env.NATS_TEST_URL ?? 'nats://127.0.0.1:4222';

/** Whether a NATS server answers at `url` (a TCP connect and its INFO line). */
export async function natsReachable(url = LOCAL_NATS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port) || 4222 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('INFO')));
    socket.once('error', () => done(false));
  });
}

/** A stream and subjects of this test's own on a shared server. */
export function uniqueLayout(replicas = 1): NatsLayout {
  const id = randomBytes(5).toString('hex');
  return { stream: `T_${id}`, prefix: `t${id}.ingest`, replicas };
}

export async function deleteStream(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url.split(','), maxReconnectAttempts: 0 }).catch(() => null);
  if (!nc) return;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A nats-server of the test's own (JetStream, its own store directory), which the test may stop and start again. */
export class NatsServer {
  private child: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  static async create(storeDir: string, extra: string[] = [], port?: number): Promise<NatsServer> {
    const p = port ?? (await freePort());
    return new NatsServer(p, ['-js', '-a', '127.0.0.1', '-p', String(p), '-sd', storeDir, ...extra]);
  }

  async start(): Promise<void> {
    const child = spawn('nats-server', this.args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server did not start: ${log}`)), 20_000);
      child.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited: ${log}`));
      });
    });
  }

  /** Stops the server (SIGKILL: as a crashed or unplugged server). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** The suite that fails in CI when the local NATS server does not answer (locally, a missing server skips the NATS suites). */
export function natsRequiredInCi(reachable: boolean, name = 'NATS availability'): void {
  describe(name, () => {
    it.runIf(process.env.CI === 'true')('is reachable in CI', () => {
      expect(reachable, `NATS at ${LOCAL_NATS_URL} is unreachable`).toBe(true);
    });
  });
}
