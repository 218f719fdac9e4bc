// The operator console (src/console/): plain browser modules bundled with preact, htm and uPlot into
// one script and one stylesheet, beside index.html under <outdir>/console/. No inline script, so
// the page runs under a CSP of `script-src 'self'`.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';

export async function buildConsole(root, outdir) {
  const out = resolve(outdir, 'console');
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: { app: resolve(root, 'src/console/app.js') },
    outdir: out,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyFile(resolve(root, 'src/console/index.html'), resolve(out, 'index.html'));
}
