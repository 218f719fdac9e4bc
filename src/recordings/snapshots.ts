import type { RecordingChunkRow } from '../../projections';
import { recordingStream, type RecordingSnapshotsData, type SnapshotLine } from '../../streams';
import type { EventLog } from '../store/event-log';

/**
 * The snapshot lines of some chunks of a session, read from the log by their revisions and put in
 * rrweb time order: a stable sort by timestamp, so lines that arrived out of order across requests
 * are replayable; lines with the same timestamp keep their arrival order, and lines without one
 * come first, in arrival order.
 */
export async function readSnapshots(log: EventLog, projectId: number, chunks: readonly RecordingChunkRow[]): Promise<SnapshotLine[]> {
  const stream = recordingStream(projectId);
  const lines: SnapshotLine[] = [];
  for (const chunk of chunks) {
    const [record] = await log.readStream(stream, { fromRevision: chunk.revision, maxCount: 1 });
    if (record === undefined || record.revision !== chunk.revision) throw new Error(`recording chunk ${stream}@${chunk.revision} is missing from the log`);
    for (const line of (record.data as RecordingSnapshotsData).snapshots) lines.push(line);
  }
  const keyed = lines.map((line, index) => ({ line, index, t: timeOf(line[1]) }));
  keyed.sort((a, b) => a.t - b.t || a.index - b.index);
  return keyed.map((k) => k.line);
}

const timeOf = (event: Record<string, unknown>): number =>
  typeof event.timestamp === 'number' && Number.isFinite(event.timestamp) ? event.timestamp : Number.NEGATIVE_INFINITY;
