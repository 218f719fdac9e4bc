import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files whose assertions time the event loop or a wall-clock budget (the hostile suites' 250 ms
 * probes, the regex and decompression budgets, lease take-over and upgrade timings): they run
 * after the rest, one file at a time, with nothing else on the machine's two cores.
 */
const TIMED = [
  'test/integration/hostile/**/*.test.ts',
  'test/unit/flags/regex-budget.test.ts',
  'test/unit/flags/operators.test.ts',
  'test/unit/ingest/gzip-bomb.test.ts',
  'test/unit/ingest/lz64.test.ts',
  'test/integration/scale-out/multi-process.test.ts',
  'test/integration/leases/postgres.test.ts',
  'test/e2e/upgrade-side-by-side.test.ts',
];
const EXCLUDE = [...configDefaults.exclude, 'test/bench/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // dist/ for the suites that run the production build (see test/support/build-once.ts).
    globalSetup: ['test/support/build-once.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'timed', include: TIMED, exclude: EXCLUDE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        // The rest mostly wait on child processes, servers and the network: two files at a time.
        // vitest's default on two cores would be one (available parallelism − 1).
        extends: true,
        test: { name: 'rest', include: ['test/**/*.test.ts'], exclude: [...EXCLUDE, ...TIMED], maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
