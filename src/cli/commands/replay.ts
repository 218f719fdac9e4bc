import type { Command } from 'commander';
import { examples } from '../help';
import { rebuild, replayUntil } from '../../app';
import { analyticsChoice } from '../../config';
import { DomainError } from '../../errors';
import { parseAsOf } from '../../time-travel';
import { UsageError } from '../errors';
import { directoryPath } from '../options';
import { foldProgress } from '../replay-progress';
import { cliConfig } from '../session';

interface ReplayOptions {
  out?: string;
  until?: string;
  json?: boolean;
}

export function registerReplay(program: Command) {
  program
    .command('replay')
    .description('rebuild every read model from the log into a fresh store and print one digest per read model; with --until, as of a point, servable with READ_ONLY=true')
    .option('--out <dir>', 'keep the rebuilt read models in this directory (default: a temporary one, removed)', directoryPath)
    .option('--until <point>', 'only the log up to this point: an ISO time or position:P (needs --out; the directory is then a whole read-only data directory)')
    .option('--json', 'print {dir, digests, quarantined} (with --until also position and logCopied)')
    .addHelpText('after', examples('replay', 'replay --out /tmp/rebuilt --json', 'replay --until 2026-11-01T00:00:00Z --out /tmp/november && DATA_DIR=/tmp/november READ_ONLY=true npm start'))
    .action(async (options: ReplayOptions) => {
      const config = cliConfig();
      if (options.until !== undefined) return replayUntilCommand(config.DATA_DIR, options.until, options, config.EVENT_LOG);
      const progress = foldProgress('replay');
      const analytics = analyticsChoice(config);
      const { dir, digests, quarantined, analyticsDatabase } = await rebuild(config.DATA_DIR, {
        outDir: options.out,
        keep: !!options.out,
        eventLog: config.EVENT_LOG,
        onProgress: progress.onProgress,
        analytics: analytics.kind === 'embedded' ? undefined : analytics,
      });
      progress.done();
      printDigests(options.out ? dir : null, digests, quarantined, options.json === true, analyticsDatabase ? { analyticsDatabase } : {});
      if (analyticsDatabase && options.json !== true) process.stdout.write(`analytics tables rebuilt in ClickHouse database ${analyticsDatabase}\n`);
    });
}

/** replay --until POINT --out DIR: the read side as it stood then, servable with READ_ONLY=true. */
async function replayUntilCommand(dataDir: string, untilText: string, options: ReplayOptions, eventLog: Parameters<typeof replayUntil>[1]['eventLog']) {
  if (!options.out) throw new UsageError('replay --until needs --out DIR: the directory the read side as of that point is written to');
  const until = asOfArgument(untilText);
  const progress = foldProgress('replay');
  const result = await replayUntil(dataDir, { until, untilText, outDir: options.out, eventLog, onProgress: progress.onProgress });
  progress.done();
  const json = options.json === true;
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
