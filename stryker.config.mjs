// Mutation testing (issue 22): `npm run mutate -- <files>` (scripts/mutate.mjs) mutates just the files
// given and runs the unit tests that import them (vitest's `related`), one worker at a time.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  // Overridden by the files given to `npm run mutate`; without any, nothing is mutated by accident.
  mutate: [],
  ignorePatterns: ['dist', 'dist.*', 'data', 'reports', 'coverage', '.tmp', '*.log'],
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  timeoutMS: 10_000,
  thresholds: { high: 90, low: 80, break: null },
};
