// The vitest configuration Stryker runs (see stryker.config.mjs and `npm run mutate`): the fast unit
// tests only, without the default configuration's globalSetup, which would rebuild dist/ inside every
// Stryker sandbox. MUTATE_TESTS (comma-separated globs, set by `npm run mutate -- --tests <globs>`)
// widens it to other suites for files no unit test reaches.
import { defineConfig } from 'vitest/config';

const include = process.env.MUTATE_TESTS?.split(',').filter(Boolean) ?? ['test/unit/**/*.test.ts'];

export default defineConfig({
  test: {
    include,
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
