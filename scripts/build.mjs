// `npm run build` (also run by `npm ci` / `npm install` through `prepare`): bundles the service and
// its CLI into dist/ for `npm start` and `npm run cli`, which then run plain node with no TypeScript
// compiler in the process.
// Packages are bundled too: resolving and loading a few thousand files of node_modules one by one
// was most of the start-up's CPU time. Those in EXTERNAL stay in node_modules (see there).
//
// Worker threads are started from `new URL('./<file>.ts', import.meta.url)` in the sources. Each such
// file becomes an entry point of its own, and the reference is rewritten to that entry's .js file.
// Every output file (entries and shared chunks) lands at the top of dist/, so a rewritten relative
// URL resolves from whichever output file the referencing code ends up in.
import { build } from 'esbuild';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(root, 'dist');
// Built beside dist/ and swapped in at the end, so a service running from dist/ meanwhile (a test,
// a benchmark) keeps a whole build under it.
const outdir = `${dist}.tmp-${process.pid}`;
/**
 * Loaded from node_modules at run time: a native addon (better-sqlite3), a WebAssembly module read
 * from beside its JavaScript (parquet-wasm), packages whose files are served or read as data
 * (posthog-js, the GeoLite2 databases, the Swagger UI's page and scripts), and large ones only loaded
 * on first use by an export or a shared log (pg, the AWS SDK, apache-arrow, the KurrentDB client),
 * which need no bundling to start fast.
 */
const EXTERNAL = [
  'better-sqlite3',
  'parquet-wasm',
  'posthog-js',
  '@ip-location-db/*',
  '@fastify/swagger-ui',
  'pg',
  'pg-native',
  '@aws-sdk/*',
  'apache-arrow',
  '@eventstore/db-client',
];
const WORKER_URL = /new URL\(\s*'(\.{1,2}\/[^']+)\.ts'\s*,\s*import\.meta\.url\s*\)/g;

/** The entry name of a source file: its path under src/, with dashes for slashes. */
const entryName = (file) => relative(resolve(root, 'src'), file).replace(/\.ts$/, '').replaceAll('/', '-');

/** Worker entries found while loading the sources: entry name -> source file. */
const workers = new Map();

const workerUrls = {
  name: 'worker-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source.replace(WORKER_URL, (_match, rel) => {
        const target = resolve(dirname(args.path), `${rel}.ts`);
        const name = entryName(target);
        if (!workers.has(name)) workers.set(name, target);
        return `new URL('./${name}.js', import.meta.url)`;
      });
      return { contents, loader: 'ts' };
    });
  },
};

const options = (entryPoints) => ({
  entryPoints,
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Bundled CommonJS packages call require() for node's built-ins; an ES module has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: 'linked',
  chunkNames: 'chunk-[hash]',
  plugins: [workerUrls],
  logLevel: 'warning',
  metafile: true,
});

await rm(outdir, { recursive: true, force: true });
// Worker entries are only known once the sources are read: build until no new one turns up (one
// extra pass in practice), always from the main entry plus every worker found so far.
let known = -1;
const started = Date.now();
while (known !== workers.size) {
  known = workers.size;
  await build(options({ main: resolve(root, 'src/main.ts'), cli: resolve(root, 'src/cli/main.ts'), ...Object.fromEntries(workers) }));
}
await buildConsole(root, outdir);
await writeFile(resolve(outdir, 'package.json'), '{ "type": "module" }\n');
await rm(`${dist}.old-${process.pid}`, { recursive: true, force: true });
await rename(dist, `${dist}.old-${process.pid}`).catch((err) => {
  if (err.code !== 'ENOENT') throw err;
});
await rename(outdir, dist);
await rm(`${dist}.old-${process.pid}`, { recursive: true, force: true });
console.log(`built dist/ (main, cli + ${workers.size} worker entries: ${[...workers.keys()].join(', ')}) in ${Date.now() - started} ms`);
