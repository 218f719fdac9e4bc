import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RecordingChunkRow } from '../../projections';
import { recordingStream, snapshotLines, type RecordingSnapshotsData, type SnapshotLine } from '../../streams';
import type { EventLog } from '../store/event-log';

/**
 * The snapshot lines of some chunks of a session, read from the log by their revisions and put in
 * rrweb time order: a stable sort by timestamp, so lines that arrived out of order across requests
 * are replayable; lines with the same timestamp keep their arrival order, and lines without one
 * come first, in arrival order.
 *
 * The caller bounds the chunks (SNAPSHOT_READ_BUDGET): each record is parsed whole by the log, so
 * the loop is given a turn between records, and no more than the budget is ever held.
 */
export async function readSnapshots(log: EventLog, projectId: number, chunks: readonly RecordingChunkRow[]): Promise<SnapshotLine[]> {
  const stream = recordingStream(projectId);
  const keyed: { line: SnapshotLine; index: number; t: number }[] = [];
  for (const [i, chunk] of chunks.entries()) {
    if (i > 0) await nextTurn();
    const [record] = await log.readStream(stream, { fromRevision: chunk.revision, maxCount: 1 });
    if (record === undefined || record.revision !== chunk.revision) throw new Error(`recording chunk ${stream}@${chunk.revision} is missing from the log`);
    for (const line of snapshotLines(record.data as RecordingSnapshotsData)) keyed.push({ line, index: keyed.length, t: timeOf(line[1]) });
  }
  // Records are usually in time order already: the sort then merges a few ascending runs.
  keyed.sort((a, b) => a.t - b.t || a.index - b.index);
  return keyed.map((k) => k.line);
}

const timeOf = (event: Record<string, unknown>): number =>
  typeof event.timestamp === 'number' && Number.isFinite(event.timestamp) ? event.timestamp : Number.NEGATIVE_INFINITY;
