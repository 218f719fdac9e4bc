import { batchExportLogStream, type Actor, type BatchExportLogLevel } from '../../../streams';
import type { AppendResult, EventLog } from '../../store/event-log';

export interface LogEntry {
  runId: string | null;
  level: BatchExportLogLevel;
  message: string;
  timestamp: string;
}

/**
 * Appends log entries of one export in one append. The log stream takes any revision: entries
 * from the API, the scheduler and workers interleave without conflicts.
 */
export async function writeLogEntries(
  log: EventLog,
  ref: { batchExportId: string; projectId: number },
  entries: readonly LogEntry[],
  actor: Actor,
): Promise<AppendResult | null> {
  if (entries.length === 0) return null;
  return log.append(
    batchExportLogStream(ref.batchExportId),
    entries.map((e) => ({ type: 'BatchExportLogWritten', data: { ...ref, ...e } })),
    { expectedRevision: 'any', context: { actor, projectId: ref.projectId } },
  );
}
