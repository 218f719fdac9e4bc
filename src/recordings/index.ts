/**
 * Session recordings: `/s/` ingestion into the log, and reading a session's snapshots back from
 * the log through the recordings read model's chunk list.
 */
import { recordingQueries } from '../../projections';
import type { SqlSession } from '../store/read-model-projection';
import type { EventLog } from '../store/event-log';
import { RecordingIngest, type RecordingIngestDeps } from './ingest';
import { readSnapshots } from './snapshots';

export { RecordingIngest, type RecordingRequest, type RecordingIngestResult } from './ingest';
export { extractSnapshots, type SessionSnapshots } from './extract-snapshots';
export { RECORDING_BODY_LIMIT, RECORDING_DECOMPRESSED_LIMIT, RECORDING_EVENTS_LIMIT, RECORDING_STORED_LIMIT, SNAPSHOT_READ_BUDGET } from './limits';
export { readSnapshots } from './snapshots';
export { blocksWithinBudget } from './read-budget';
export { jsonlStream } from './jsonl-stream';

export function openRecordings(deps: RecordingIngestDeps & { log: EventLog; session: SqlSession }) {
  const queries = recordingQueries(deps.session);
  return {
    ingest: new RecordingIngest(deps),
    queries,
    snapshots: (projectId: number, chunks: Parameters<typeof readSnapshots>[2]) => readSnapshots(deps.log, projectId, chunks),
  };
}

export type Recordings = ReturnType<typeof openRecordings>;
