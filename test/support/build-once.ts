// vitest globalSetup: the suites that start the service as `npm start` does run the build in dist/,
// so it is rebuilt first when any source is newer than it (a fresh clone gets it from `npm ci`).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './child';

const SOURCES = ['src', 'projections', 'streams', 'scripts', 'package.json'];

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stat.mtimeMs);
}

/** When the oldest entry point was built (0 when one is missing). */
function builtAt(): number {
  try {
    return Math.min(...['main.js', 'cli.js'].map((entry) => statSync(join(repoRoot, 'dist', entry)).mtimeMs));
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const sources = Math.max(...SOURCES.map((s) => newest(join(repoRoot, s))));
  if (sources > builtAt()) execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
