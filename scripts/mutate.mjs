// `npm run mutate -- <file|glob>... [--tests <glob,glob>] [--static] [other stryker options]`: runs
// Stryker (stryker.config.mjs) mutating only the files given. --tests widens the suites run beyond
// test/unit/** (see vitest.mutate.config.ts); --static also tests mutants of module-level code (see
// the config's ignoreStatic); anything else starting with -- goes to Stryker as is.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const files = [];
const passThrough = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--tests') process.env.MUTATE_TESTS = args[++i] ?? '';
  else if (arg === '--static') process.env.MUTATE_STATIC = '1';
  else if (arg.startsWith('-')) {
    passThrough.push(arg);
    if (!arg.includes('=') && args[i + 1] !== undefined && !args[i + 1].startsWith('-') && !/\.[cm]?[jt]s$/.test(args[i + 1])) {
      passThrough.push(args[++i]);
    }
  } else files.push(arg);
}
if (files.length === 0) {
  console.error('usage: npm run mutate -- <file|glob>... [--tests <glob,glob>] [--static] [stryker options]');
  process.exit(2);
}
const core = dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json'));
const stryker = join(core, 'bin', 'stryker.js');
const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs', '--mutate', files.join(','), ...passThrough], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
