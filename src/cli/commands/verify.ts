import type { Command } from 'commander';
import { examples } from '../help';
import { replayApart, verify, type ReplayApart } from '../../app';
import { ExitCode } from '../errors';
import { foldProgress } from '../replay-progress';
import { withRuntime } from '../session';
import { chainCheck } from '../verify-chain';

export function registerVerify(program: Command) {
  program
    .command('verify')
    .description("check the log's hash chain, then catch the live read models up, replay the log to the same positions and compare digests (exit 1 on a broken chain or a difference)")
    .option('--json', 'print the comparison as one JSON object')
    .option('--since-checkpoint', 'check the hash chain only after the checkpoint verify signed last (default: from the log\'s start)')
    .addHelpText('after', '\nExit code 1 on a broken hash chain (the first bad position is named), a different digest, different quarantines, or a read model that cannot reach the log\'s head.\n' + examples('verify'))
    .action((options: { json?: boolean; sinceCheckpoint?: boolean }) => {
      const progress = foldProgress('verify replay');
      let replay: ReplayApart | undefined;
      const verified = withRuntime(async ({ runtime, dataDir }) => {
        // The chain decides first: digests rebuilt from an edited log would only agree with it.
        progress.hold(true);
        const chain = await chainCheck(runtime, dataDir, { sinceCheckpoint: options.sinceCheckpoint, json: options.json });
        progress.hold(false);
        if (!chain.ok) {
          await replay?.cancel();
          if (options.json) process.stdout.write(JSON.stringify({ ok: false, chain: chain.report }) + '\n');
          process.exitCode = ExitCode.failure;
          return;
        }
        const result = await verify(runtime, dataDir, { replay, onProgress: progress.onCounted });
        progress.done();
        if (options.json) process.stdout.write(JSON.stringify({ ...result, chain: chain.report }) + '\n');
        else
          for (const r of result.rows) {
            const state = !r.equal ? 'DIFF' : !r.atHead ? 'BEHIND' : 'ok  ';
            const quarantined = r.quarantined.live || r.quarantined.replayed ? ` quarantined ${r.quarantined.live}/${r.quarantined.replayed}` : '';
            const reason = result.failures[r.projection] ? ` stopped: ${result.failures[r.projection]}` : '';
            process.stdout.write(`${state} ${r.projection.padEnd(20)} live ${r.live.slice(0, 16)} replayed ${r.replayed.slice(0, 16)} @${r.position}/${result.head}${quarantined}${reason}\n`);
          }
        if (!result.ok) process.exitCode = ExitCode.failure;
      }, {
        analytics: true,
        // The replay starts on its own thread before the session folds the live read models, so both folds run at once.
        opened: async ({ runtime, dataDir }) => {
          replay = await replayApart(runtime, dataDir, progress.onCounted);
        },
      });
      // A command that failed half-way leaves no thread replaying behind it (a finished one is gone already).
      return verified.finally(() => replay?.cancel());
    });
}
