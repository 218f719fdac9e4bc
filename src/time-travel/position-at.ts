import type { EventLog } from '../store/event-log';
import { within, type AsOf } from './as-of';

/** Pages of the scan: bounded in bytes, as the runner's catch-up (one record may hold 10,000 events). */
const PAGE = { maxCount: 10_000, maxBytes: 8 * 1024 * 1024 };

/**
 * The position of the last event of the log at or before `asOf` (0: none). The port has no index by
 * time, so this reads the log from the start up to that point; whole-log work, for `replay --until`,
 * which reads that much anyway. Stops at the first event past the point: the log's order is the
 * order of history, and an event recorded earlier than one before it (another process's clock) is
 * past the point all the same.
 */
export async function lastPositionAt(log: EventLog, asOf: AsOf, onProgress?: (position: number) => void): Promise<number> {
  let last = 0;
  for (;;) {
    const page = await log.readAll({ afterPosition: last, ...PAGE, ...('position' in asOf ? { toPosition: asOf.position } : {}) });
    if (page.length === 0) return last;
    for (const event of page) {
      if (!within(asOf, event)) return last;
      last = event.position;
    }
    onProgress?.(last);
  }
}
