// The ingest role alone over an SQLite log: argv = log path; NATS_URL, NATS_STREAM,
// NATS_SUBJECT_PREFIX, NATS_ACK_WAIT_MS in the environment. With KILL_AFTER=n it SIGKILLs itself
// right after its n-th append has returned, before that message is acknowledged.
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { startIngestConsumers } from '../../../src/adapters/nats/ingest-consumer';
import type { AppendOptions, AppendResult } from '../../../src/store/event-log';
import type { NewEvent } from '../../../streams';

const killAfter = Number(process.env.KILL_AFTER ?? 0);

class KillingLog extends SqliteEventLog {
  private appendCount = 0;

  override async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const result = await super.append(streamId, events, options);
    process.stdout.write(`appended ${streamId} ${result.duplicate ? 'duplicate' : 'new'}\n`);
    if (++this.appendCount === killAfter) process.kill(process.pid, 'SIGKILL');
    return result;
  }
}

const log = new KillingLog(process.argv[2]);
await startIngestConsumers(log, {
  url: process.env.NATS_URL!,
  stream: process.env.NATS_STREAM!,
  prefix: process.env.NATS_SUBJECT_PREFIX!,
  replicas: 1,
  batch: 16,
  ackWaitMs: Number(process.env.NATS_ACK_WAIT_MS ?? 2000),
  onError: (message, err) => process.stderr.write(`${message}: ${String(err)}\n`),
});
process.stdout.write('ready\n');
