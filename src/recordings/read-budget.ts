import type { RecordingChunkRow } from '../../projections';
import { SNAPSHOT_READ_BUDGET } from './limits';

/**
 * How many of `chunks` (from the first) one snapshots answer may carry: their stored bytes and rrweb
 * events, as the read model counted them at ingest, stay within the budget. A block stored since the
 * stored limit exists always fits alone; one stored before it may not (0), and is refused rather
 * than parsed.
 */
export function blocksWithinBudget(chunks: readonly Pick<RecordingChunkRow, 'snapshot_bytes' | 'snapshot_count'>[], budget = SNAPSHOT_READ_BUDGET): number {
  let bytes = 0;
  let events = 0;
  for (const [i, c] of chunks.entries()) {
    bytes += c.snapshot_bytes;
    events += c.snapshot_count;
    if (bytes > budget.bytes || events > budget.events) return i;
  }
  return chunks.length;
}
