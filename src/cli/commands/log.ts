import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../../config';
import { openServerLog, openSqliteLog } from '../../app/event-log';
import type { EventLog } from '../../store/event-log';
import { storeFiles } from '../../runtime/store-files';
import { examples } from '../help';
import { ExitCode, UsageError } from '../errors';
import { exportLog } from '../log-export';
import { showStream } from '../log-show';
import { logPosition } from '../options';
import { progressBar } from '../progress';
import { cliConfig } from '../session';

/** stdout with its backpressure respected: an export of millions of lines into a slow pipe. */
function writeOut(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}

/** The raw log EVENT_LOG names, without the runtime (no read models are folded for this). */
async function openLog(config: Config): Promise<EventLog> {
  if (config.EVENT_LOG.kind !== 'sqlite') return (await openServerLog(config.EVENT_LOG)).log;
  const path = storeFiles(config.DATA_DIR).log;
  if (!existsSync(path)) throw new UsageError(`${path}: no event log here (DATA_DIR=${config.DATA_DIR})`);
  return openSqliteLog(path).log;
}

async function withLog<T>(work: (log: EventLog) => Promise<T>): Promise<T> {
  const log = await openLog(cliConfig());
  try {
    return await work(log);
  } finally {
    await log.close();
  }
}

/** `log export` and `log show`: the log for tools and people outside the service (docs/auditing.md). */
export function registerLog(program: Command) {
  const log = program.command('log').description('the event log for outside tools: records as JSON lines with their hashes, one stream readably');

  log
    .command('export')
    .description('write records as JSON lines with their chain hashes (prev, hash) to stdout; progress on stderr')
    .option('--from <position>', 'first log position exported (inclusive)', logPosition)
    .option('--to <position>', 'last log position exported (inclusive)', logPosition)
    .option('--stream <stream>', "only this stream's records")
    .addHelpText('after', '\nThe canonical encoding and a script that recomputes the chain: docs/auditing.md.\n' + examples('log export > log.jsonl', 'log export --stream feature-flag-7 --from 100'))
    .action((options: { from?: number; to?: number; stream?: string }) =>
      withLog(async (eventLog) => {
        const bar = progressBar('log export', 'records');
        const { exported } = await exportLog(eventLog, options, writeOut, (position, to, written) => bar.update(written, to > 0 ? position / to : 1));
        bar.done(exported, 1);
        process.stderr.write(`exported ${exported} record(s)\n`);
      }),
    );

  log
    .command('show')
    .description("print one stream's history readably: revision, time, type, actor, data")
    .argument('<stream>', 'the stream name (log export lists them)')
    .addHelpText('after', examples('log show feature-flag-7'))
    .action((stream: string) =>
      withLog(async (eventLog) => {
        const shown = await showStream(eventLog, stream, writeOut);
        if (shown === 0) {
          process.stderr.write(`error: ${JSON.stringify(stream)}: no such stream in the log\n`);
          process.exitCode = ExitCode.failure;
        }
      }),
    );
}
