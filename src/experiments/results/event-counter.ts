import type { Observable, Subscription } from 'rxjs';
import type { AppliedBatch } from '../../store/runner';

/** Ingested events go to `ingest-<projectId>` streams; the metadata carries the project as well. */
const projectOf = (e: AppliedBatch['events'][number]): number | null => {
  if (e.metadata.projectId !== null) return e.metadata.projectId;
  const match = /^ingest-(\d+)$/.exec(e.streamId);
  return match ? Number(match[1]) : null;
};

/**
 * A per-project number that changes whenever the ingestion projection commits events of that
 * project. Results are computed from that projection's tables, so "same number" means "same events
 * table for this project" (merges included: they arrive as events too). A runner in a worker thread
 * reports a committed batch as one stub per project, after the commit: the number then moves by
 * one per batch, and a result computed between commit and report is merely recomputed once more.
 */
export class ProjectEventCounter {
  private readonly counts = new Map<number, number>();
  private readonly subscription: Subscription;
  /** Moves when what changed is not known: then every project's number moves. */
  private everyProject = 0;

  constructor(applied$: Observable<AppliedBatch>) {
    this.subscription = applied$.subscribe(({ projection, events, unknown }) => {
      if (projection !== 'ingestion') return;
      if (unknown) this.everyProject++;
      for (const e of events) {
        const projectId = projectOf(e);
        if (projectId !== null) this.counts.set(projectId, (this.counts.get(projectId) ?? 0) + 1);
      }
    });
  }

  version(projectId: number): number {
    return (this.counts.get(projectId) ?? 0) + this.everyProject;
  }

  close(): void {
    this.subscription.unsubscribe();
  }
}
