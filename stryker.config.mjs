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
  // Mutants of module-level code (constant tables, top-level regexes) can only be tested by
  // reloading every related test file for each one: a quarter of the flag engine's mutants took four
  // fifths of the time. They are reported as Ignored and left out of the score; `npm run mutate --
  // --static <files>` tests them too (MUTATE_STATIC=1).
  ignoreStatic: process.env.MUTATE_STATIC !== '1',
  thresholds: { high: 90, low: 80, break: null },
};
