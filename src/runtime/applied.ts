/** What a committed batch touched: enough for caches to invalidate (a remote runner sends stubs). */
export interface AppliedEvent {
  type: string;
  position: number;
  streamId: string;
  metadata: { projectId: number | null };
}
export interface AppliedBatch {
  projection: string;
  events: readonly AppliedEvent[];
}
