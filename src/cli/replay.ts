import { rebuild, replayUntil, verify } from '../app';
import { DomainError } from '../errors';
import { parseAsOf } from '../time-travel';
import type { Runtime } from '../app';
import type { EventLogChoice } from '../config';
import { parse, UsageError } from './args';
import { progressBar } from './progress';

/** replay [--out DIR] [--until TIME|position:P]: rebuild every read model from the log into a fresh store; one digest per read model. */
export async function replayCommand(dataDir: string, argv: string[], eventLog?: EventLogChoice) {
  const { values } = parse(argv, { out: { type: 'string' }, until: { type: 'string' } });
  if (values.until !== undefined) return replayUntilCommand(dataDir, values.until, values.out, values.json === true, eventLog);
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
  printDigests(values.out ? dir : null, digests, quarantined, values.json === true);
}

/** replay --until POINT --out DIR: the read side as it stood then, servable with READ_ONLY=true. */
async function replayUntilCommand(dataDir: string, untilText: string, out: string | undefined, json: boolean, eventLog?: EventLogChoice) {
  if (!out) throw new UsageError('replay --until needs --out DIR: the directory the read side as of that point is written to');
  const until = asOfArgument(untilText);
  const bar = progressBar('replay');
  let last = { p: 0, h: 0 };
  const result = await replayUntil(dataDir, {
    until,
    untilText,
    outDir: out,
    eventLog,
    onProgress: (p, h) => {
      last = { p, h };
      bar.update(p, h);
    },
  });
  bar.done(last.p, last.h);
  printDigests(result.dir, result.digests, result.quarantined, json, { position: result.position, logCopied: result.logCopied });
  if (!json) {
    process.stdout.write(`read side as of ${untilText} (up to position ${result.position}) in ${result.dir}\n`);
    if (result.logCopied) process.stdout.write(`serve it read-only: DATA_DIR=${result.dir} READ_ONLY=true npm start\n`);
  }
}

function asOfArgument(text: string) {
  try {
    return parseAsOf(text);
  } catch (err) {
    if (err instanceof DomainError) throw new UsageError(`--until: ${err.message.replace(/^as_of /, '')}`);
    throw err;
  }
}

function printDigests(dir: string | null, digests: { projection: string; digest: string; position: number }[], quarantined: number, json: boolean, extra: Record<string, unknown> = {}) {
  if (json) process.stdout.write(JSON.stringify({ dir, digests, quarantined, ...extra }) + '\n');
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
    for (const r of result.rows) {
      const state = !r.equal ? 'DIFF' : !r.atHead ? 'BEHIND' : 'ok  ';
      const quarantined = r.quarantined.live || r.quarantined.replayed ? ` quarantined ${r.quarantined.live}/${r.quarantined.replayed}` : '';
      const reason = result.failures[r.projection] ? ` stopped: ${result.failures[r.projection]}` : '';
      process.stdout.write(`${state} ${r.projection.padEnd(20)} live ${r.live.slice(0, 16)} replayed ${r.replayed.slice(0, 16)} @${r.position}/${result.head}${quarantined}${reason}\n`);
    }
  return result.ok ? 0 : 1;
}
