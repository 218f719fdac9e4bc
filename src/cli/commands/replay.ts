import type { Command } from 'commander';
import { examples } from '../help';
import { rebuild } from '../../app';
import { directoryPath } from '../options';
import { foldProgress } from '../replay-progress';
import { cliConfig } from '../session';

export function registerReplay(program: Command) {
  program
    .command('replay')
    .description('rebuild every read model from the log into a fresh store and print one digest per read model')
    .option('--out <dir>', 'keep the rebuilt read models in this directory (default: a temporary one, removed)', directoryPath)
    .option('--json', 'print {dir, digests, quarantined}')
    .addHelpText('after', examples('replay', 'replay --out /tmp/rebuilt --json'))
    .action(async (options: { out?: string; json?: boolean }) => {
      const config = cliConfig();
      const progress = foldProgress('replay');
      const { dir, digests, quarantined } = await rebuild(config.DATA_DIR, { outDir: options.out, keep: !!options.out, eventLog: config.EVENT_LOG, onProgress: progress.onProgress });
      progress.done();
      if (options.json) process.stdout.write(JSON.stringify({ dir: options.out ? dir : null, digests, quarantined }) + '\n');
      else {
        for (const d of digests) process.stdout.write(`${d.projection.padEnd(20)} ${d.digest}  @${d.position}\n`);
        // Skipped events are part of a faithful replay (the live service skipped them too): exit 0, but say so.
        if (quarantined) process.stdout.write(`quarantined ${quarantined} event(s) that a projection could not apply (see projection_failures)\n`);
      }
    });
}
