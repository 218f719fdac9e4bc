import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // dist/ for the suites that run the production build (see test/support/build-once.ts).
    globalSetup: ['test/support/build-once.ts'],
  },
});
