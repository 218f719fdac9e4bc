import type { BatchExportLogLevel } from '../../../streams';
import type { EventLog } from '../../store/event-log';
import { scrubSecrets } from '../destinations';
import { writeLogEntries, type LogEntry } from '../model/log-entries';

/**
 * Collects one attempt's log lines and appends them together when the attempt ends: a handful
 * of events per run instead of one append per line. Every line is scrubbed of the destination's
 * secret values (destinations already do; this also covers the worker's own messages).
 */
export class RunLog {
  private entries: LogEntry[] = [];

  constructor(
    private readonly log: EventLog,
    private readonly ref: { batchExportId: string; projectId: number; runId: string | null },
    private readonly destination: { type: string; config: Record<string, unknown> },
    private readonly now: () => Date,
  ) {}

  add(level: BatchExportLogLevel, message: string): void {
    const scrubbed = scrubSecrets(message, this.destination.type, this.destination.config);
    this.entries.push({ runId: this.ref.runId, level, message: scrubbed, timestamp: this.now().toISOString() });
  }

  async flush(): Promise<number | null> {
    const entries = this.entries;
    this.entries = [];
    const result = await writeLogEntries(this.log, { batchExportId: this.ref.batchExportId, projectId: this.ref.projectId }, entries, { type: 'worker' });
    return result?.lastPosition ?? null;
  }
}
