import { rebuild, verify } from '../app';
import type { Runtime } from '../app';
import { parse } from './args';
import { progressBar } from './progress';

/** replay [--out DIR]: rebuild every read model from the log into a fresh store; one digest per read model. */
export async function replayCommand(dataDir: string, argv: string[]) {
  const { values } = parse(argv, { out: { type: 'string' } });
  const bar = progressBar('replay');
  let last = { p: 0, h: 0 };
  const { dir, digests } = await rebuild(dataDir, {
    outDir: values.out,
    keep: !!values.out,
    onProgress: (p, h) => {
      last = { p, h };
      bar.update(p, h);
    },
  });
  bar.done(last.p, last.h);
  if (values.json) process.stdout.write(JSON.stringify({ dir: values.out ? dir : null, digests }) + '\n');
  else for (const d of digests) process.stdout.write(`${d.projection.padEnd(20)} ${d.digest}  @${d.position}\n`);
}

/** verify: replay and compare with the live read models; exit 1 on any difference. */
export async function verifyCommand(runtime: Runtime, dataDir: string, argv: string[]): Promise<number> {
  const { values } = parse(argv, {});
  const bar = progressBar('verify');
  let last = { p: 0, h: 0 };
  const result = await verify(runtime, dataDir, (p, h) => {
    last = { p, h };
    bar.update(p, h);
  });
  bar.done(last.p, last.h);
  if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
  else
    for (const r of result.rows)
      process.stdout.write(`${r.equal ? 'ok  ' : 'DIFF'} ${r.projection.padEnd(20)} live ${r.live.slice(0, 16)} replayed ${r.replayed.slice(0, 16)} @${r.position}\n`);
  return result.ok ? 0 : 1;
}
