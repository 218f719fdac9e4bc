import type { Command } from 'commander';
import { examples } from '../help';
import { verify } from '../../app';
import { ExitCode } from '../errors';
import { foldProgress } from '../replay-progress';
import { withRuntime } from '../session';

export function registerVerify(program: Command) {
  program
    .command('verify')
    .description('catch the live read models up, replay the log to the same positions and compare digests (exit 1 on a difference)')
    .option('--json', 'print the comparison as one JSON object')
    .addHelpText('after', '\nExit code 1 on a different digest, different quarantines, or a read model that cannot reach the log\'s head.\n' + examples('verify'))
    .action((options: { json?: boolean }) =>
      withRuntime(async ({ runtime, dataDir }) => {
        const progress = foldProgress('verify');
        const result = await verify(runtime, dataDir, progress.onProgress);
        progress.done();
        if (options.json) process.stdout.write(JSON.stringify(result) + '\n');
        else
          for (const r of result.rows) {
            const state = !r.equal ? 'DIFF' : !r.atHead ? 'BEHIND' : 'ok  ';
            const quarantined = r.quarantined.live || r.quarantined.replayed ? ` quarantined ${r.quarantined.live}/${r.quarantined.replayed}` : '';
            const reason = result.failures[r.projection] ? ` stopped: ${result.failures[r.projection]}` : '';
            process.stdout.write(`${state} ${r.projection.padEnd(20)} live ${r.live.slice(0, 16)} replayed ${r.replayed.slice(0, 16)} @${r.position}/${result.head}${quarantined}${reason}\n`);
          }
        if (!result.ok) process.exitCode = ExitCode.failure;
      }),
    );
}
