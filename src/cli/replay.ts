import { rebuild, verify } from '../app';
import type { Runtime } from '../app';
import type { EventLogChoice } from '../config';
import { parse } from './args';
import { progressBar } from './progress';
import { chainCheck } from './verify-chain';

/** replay [--out DIR]: rebuild every read model from the log into a fresh store; one digest per read model. */
export async function replayCommand(dataDir: string, argv: string[], eventLog?: EventLogChoice) {
  const { values } = parse(argv, { out: { type: 'string' } });
  const bar = progressBar('replay');
  let last = { p: 0, h: 0 };
  const { dir, digests, quarantined } = await rebuild(dataDir, {
    outDir: values.out,
    keep: !!values.out,
    eventLog,
    onProgress: (p, h) => {
      last = { p, h };
      bar.update(p, h);
    },
  });
  bar.done(last.p, last.h);
  if (values.json) process.stdout.write(JSON.stringify({ dir: values.out ? dir : null, digests, quarantined }) + '\n');
  else {
    for (const d of digests) process.stdout.write(`${d.projection.padEnd(20)} ${d.digest}  @${d.position}\n`);
    // Skipped events are part of a faithful replay (the live service skipped them too): exit 0, but say so.
    if (quarantined) process.stdout.write(`quarantined ${quarantined} event(s) that a projection could not apply (see projection_failures)\n`);
  }
}

/**
 * verify: replay and compare with the live read models; exit 1 on any difference, on different
 * quarantines, or when a live projection cannot reach the log's head.
 */
export async function verifyCommand(runtime: Runtime, dataDir: string, argv: string[]): Promise<number> {
  const { values } = parse(argv, { 'since-checkpoint': { type: 'boolean' } });
  // The log itself first: digests rebuilt from an edited log would only agree with it.
  const chain = await chainCheck(runtime, dataDir, { sinceCheckpoint: values['since-checkpoint'], json: values.json });
  if (!chain.ok) {
    if (values.json) process.stdout.write(JSON.stringify({ ok: false, chain: chain.report }) + '\n');
    return 1;
  }
  const bar = progressBar('verify');
  let last = { p: 0, h: 0 };
  const result = await verify(runtime, dataDir, (p, h) => {
    last = { p, h };
    bar.update(p, h);
  });
  bar.done(last.p, last.h);
  if (values.json) process.stdout.write(JSON.stringify({ ...result, chain: chain.report }) + '\n');
  else
    for (const r of result.rows) {
      const state = !r.equal ? 'DIFF' : !r.atHead ? 'BEHIND' : 'ok  ';
      const quarantined = r.quarantined.live || r.quarantined.replayed ? ` quarantined ${r.quarantined.live}/${r.quarantined.replayed}` : '';
      const reason = result.failures[r.projection] ? ` stopped: ${result.failures[r.projection]}` : '';
      process.stdout.write(`${state} ${r.projection.padEnd(20)} live ${r.live.slice(0, 16)} replayed ${r.replayed.slice(0, 16)} @${r.position}/${result.head}${quarantined}${reason}\n`);
    }
  return result.ok ? 0 : 1;
}
