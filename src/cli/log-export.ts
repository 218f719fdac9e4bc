import type { RecordedEvent } from '../../streams';
import type { EventLog } from '../store/event-log';

export interface LogExportOptions {
  /** First position exported (inclusive). */
  from?: number;
  /** Last position exported (inclusive). */
  to?: number;
  /** Only this stream's records. */
  stream?: string;
}

/** One exported record: the chain's fields under their names in docs/auditing.md, then `prev` and `hash`. */
export interface ExportedRecord {
  position: number;
  streamId: string;
  revision: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  eventId: string;
  recordedAt: string;
  projectId: number | null;
  actor: unknown;
  causationId: string | null;
  correlationId: string | null;
  /** The previous record's hash in the log ("" before the first chained record; null for records before the chain). */
  prev: string | null;
  hash: string | null;
}

export function exportedRecord(e: RecordedEvent, prev: string | null): ExportedRecord {
  const m = e.metadata;
  return {
    position: e.position,
    streamId: e.streamId,
    revision: e.revision,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data,
    eventId: m.eventId,
    recordedAt: m.recordedAt,
    projectId: m.projectId,
    actor: m.actor,
    causationId: m.causationId,
    correlationId: m.correlationId,
    prev: e.hash === undefined ? null : prev,
    hash: e.hash ?? null,
  };
}

/**
 * Writes the raw log's records (as stored, before any upcast: what the chain covers) as JSON lines
 * with their hashes. The log is read from its start whatever `from` is, so that each line can carry
 * its predecessor's hash (`prev`): a range or a single stream is then checkable record by record.
 */
export async function exportLog(
  log: EventLog,
  options: LogExportOptions,
  write: (line: string) => Promise<void> | void,
  /** After each page: the last position read, the last one to read, and the records written so far. */
  onProgress?: (position: number, to: number, exported: number) => void,
): Promise<{ exported: number }> {
  const head = await log.head();
  const to = Math.min(options.to ?? head, head);
  let prev = '';
  let after = 0;
  let exported = 0;
  for (;;) {
    const page = await log.readAll({ afterPosition: after, toPosition: to, maxCount: 2000, maxBytes: 16 * 1024 * 1024 });
    if (page.length === 0) break;
    for (const e of page) {
      const wanted = (options.from === undefined || e.position >= options.from) && (options.stream === undefined || e.streamId === options.stream);
      if (wanted) {
        await write(JSON.stringify(exportedRecord(e, prev)) + '\n');
        exported++;
      }
      prev = e.hash ?? '';
    }
    after = page[page.length - 1].position;
    onProgress?.(after, to, exported);
  }
  return { exported };
}
