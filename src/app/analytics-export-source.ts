import type { ExportSource } from '../exports/worker/export-source';
import type { EventLog } from '../store/event-log';
import type { AnalyticsFold } from './analytics-fold';

/** How long a run waits for the analytics fold to reach the log's head before it fails (and is retried). */
const CATCH_UP_MS = 60_000;

/**
 * An export source over a store the analytics fold feeds (ClickHouse), which follows the ingestion
 * fold asynchronously: the worker has waited for the ingestion fold to reach the log's head, so each
 * run also waits for the analytics fold to get there before it opens, else it would miss events the
 * read models already hold. A fold that cannot (server out of reach) fails the run with the
 * positions said, rather than letting it export fewer rows.
 */
export function afterAnalyticsFold(log: Pick<EventLog, 'head'>, fold: Pick<AnalyticsFold, 'waitFor' | 'folded'>, source: ExportSource, timeoutMs = CATCH_UP_MS): ExportSource {
  return async (exp, run) => {
    const head = await log.head();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the analytics store has folded the log to position ${fold.folded}, not yet to ${head}, after ${timeoutMs / 1000} s: the export run waits for it`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([fold.waitFor(head), timedOut]);
    } finally {
      clearTimeout(timer);
    }
    return source(exp, run);
  };
}
