import { execFile, spawnSync } from 'node:child_process';
import { cliArgs as args, repoRoot } from './child';

/** Runs `npm run -s cli -- ...args` the way a user would, against a data directory. */
export function cli(dataDir: string, rest: string[], input?: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, args(rest), {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir, ...env },
    input,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same without blocking the test's event loop, so several runs can go at once. */
export function cliAsync(dataDir: string, rest: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args(rest), { cwd: repoRoot, env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}
