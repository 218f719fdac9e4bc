// How the benchmarks start their server processes: as `npm start` does, plus flags for experiments.
export { npmStartArgs } from '../support/child';

/** BENCH_CPU_PROF=<dir> writes the servers' CPU profiles there; BENCH_NODE_FLAGS adds node flags (e.g. --trace-gc). */
export function experimentNodeFlags(): string[] {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return [...profile, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
}
