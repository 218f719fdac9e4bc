// npm run bench -- <name> [args]: runs test/bench/<name>.ts. Benchmarks are never part of npm test.
// The build is made first: benchmarks that start the service run `npm start`'s command on dist/.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''));
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|')}> [args]`);
  process.exit(2);
}
execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url))], { stdio: 'inherit' });
process.argv = [process.argv[0], process.argv[1], ...args];
await import(pathToFileURL(`${here}${name}.ts`).href);
