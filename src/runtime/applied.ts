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
  /**
   * What moved is not known (a following process was cut off from the store for longer than the
   * change rows are kept): every cache of the projection's data, in every project, is stale.
   */
  unknown?: true;
}
