// How the benchmarks start their server processes: as `npm start` does, plus flags for experiments.
import { spawnSync } from 'node:child_process';
import { npmStartArgs } from '../support/child';

export { npmStartArgs };

/** BENCH_CPU_PROF=<dir> writes the servers' CPU profiles there; BENCH_NODE_FLAGS adds node flags (e.g. --trace-gc). */
export function experimentNodeFlags(): string[] {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return [...profile, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
}

/**
 * For a bench that runs the service's code in its own process: unless this process already has
 * `npm start`'s node flags, runs `file` again in a child that has them (with this process's own
 * flags and arguments) and answers its exit code; null when this process has them.
 */
export function rerunWithStartFlags(file: string): number | null {
  const flags = npmStartArgs().filter((a) => a.startsWith('--'));
  const have = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(' ')];
  if (flags.every((f) => have.includes(f))) return null;
  const child = spawnSync(process.execPath, [...process.execArgv, file, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...flags].join(' ').trim() },
  });
  return child.status ?? 1;
}
