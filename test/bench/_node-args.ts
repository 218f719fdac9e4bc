// How the benchmarks start their server processes: as `npm start` does, plus flags for experiments.
import { readFileSync } from 'node:fs';

/** The arguments `npm start` gives node (its flags, then the entry point). */
export function npmStartArgs(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.replace(/^exec /, '').split(' ').slice(1);
}

/** BENCH_CPU_PROF=<dir> writes the servers' CPU profiles there; BENCH_NODE_FLAGS adds node flags (e.g. --trace-gc). */
export function experimentNodeFlags(): string[] {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return [...profile, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
}
