import { existsSync } from 'node:fs';
import type { Config } from '../config';
import { openServerLog, openSqliteLog } from '../app/event-log';
import type { EventLog } from '../store/event-log';
import { storeFiles } from '../runtime/store-files';
import { UsageError, parse } from './args';
import { exportLog } from './log-export';
import { showStream } from './log-show';
import { progressBar } from './progress';

const USAGE = `usage: npm run cli -- log export [--from POSITION] [--to POSITION] [--stream STREAM]   records as JSON lines with their hashes
       npm run cli -- log show STREAM                                               one stream's history`;

/** stdout with its backpressure respected: an export of millions of lines into a slow pipe. */
function writeOut(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}

function position(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`--${name} takes a log position (a whole number), not ${JSON.stringify(value)}`);
  return n;
}

/** The raw log EVENT_LOG names, without the runtime (no read models are folded for this). */
async function openLog(config: Config): Promise<EventLog> {
  if (config.EVENT_LOG.kind !== 'sqlite') return (await openServerLog(config.EVENT_LOG)).log;
  const path = storeFiles(config.DATA_DIR).log;
  if (!existsSync(path)) throw new UsageError(`no event log at ${path} (DATA_DIR=${config.DATA_DIR})`);
  return openSqliteLog(path).log;
}

/** `log export` and `log show`: the log for tools and people outside the service (docs/auditing.md). */
export async function logCommand(config: Config, argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'export') {
    const { values, positionals } = parse(rest, { from: { type: 'string' }, to: { type: 'string' }, stream: { type: 'string' } });
    if (positionals.length) throw new UsageError(`log export takes no argument ${JSON.stringify(positionals[0])}\n${USAGE}`);
    const options = { from: position('from', values.from), to: position('to', values.to), stream: values.stream };
    const log = await openLog(config);
    try {
      const bar = progressBar('log export (positions)');
      let last = { p: 0, h: 0 };
      const { exported } = await exportLog(log, options, writeOut, (p, h) => {
        last = { p, h };
        bar.update(p, h);
      });
      bar.done(last.p, last.h);
      process.stderr.write(`exported ${exported} record(s)\n`);
    } finally {
      await log.close();
    }
    return 0;
  }
  if (sub === 'show') {
    const { positionals } = parse(rest, {});
    if (positionals.length !== 1) throw new UsageError(`log show takes one stream name\n${USAGE}`);
    const log = await openLog(config);
    try {
      const shown = await showStream(log, positionals[0], writeOut);
      if (shown === 0) {
        process.stderr.write(`no stream named ${JSON.stringify(positionals[0])} in the log\n`);
        return 1;
      }
    } finally {
      await log.close();
    }
    return 0;
  }
  throw new UsageError(USAGE);
}
