import { spawn, type ChildProcess } from 'node:child_process';
import { experimentNodeFlags, npmStartArgs } from './_node-args';

export interface BuiltService {
  server: ChildProcess;
  url: string;
  /** Resolves when the process has exited. */
  exited: Promise<unknown>;
}

/**
 * The built service started as `npm start` starts it (its node flags: a larger young generation,
 * since every ingestion request allocates a few MB that die with it), plus the experiment flags
 * (CPU profiles: one per thread); resolves once it listens.
 */
export async function startBuiltService(env: Record<string, string>, cwd?: string): Promise<BuiltService> {
  const server = spawn(process.execPath, [...experimentNodeFlags(), ...npmStartArgs()], {
    cwd,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', PRINT_CREDENTIALS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => server.once('exit', r));
  const url = await new Promise<string>((resolve, reject) => {
    // A process that exits before it listens (a refused configuration) fails the bench instead of hanging it.
    server.once('exit', (code) => reject(new Error(`the service exited (${code}) before it listened`)));
    let out = '';
    server.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (process.env.BENCH_SERVICE_WARNINGS) for (const line of c.toString().split('\n')) if (/"level":(4|5)\d/.test(line)) process.stderr.write(`service: ${line.slice(0, 400)}\n`);
      const m = /listening at (http:\/\/[^"\s]+)/.exec(out);
      if (m) resolve(m[1]);
    });
  });
  return { server, url, exited };
}
