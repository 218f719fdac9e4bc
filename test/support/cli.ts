import { spawnSync } from 'node:child_process';
import { repoRoot } from './child';

/** Runs `npm run -s cli -- ...args` the way a user would, against a data directory. */
export function cli(dataDir: string, args: string[], input?: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, DATA_DIR: dataDir },
    input,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
