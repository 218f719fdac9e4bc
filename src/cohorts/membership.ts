/**
 * The flag engine's `personCohorts` over a cohort membership lookup: the ids of the cohorts the
 * person behind a distinct id belongs to. Evaluation asks only when a flag has a cohort condition.
 */
export const personCohorts =
  (cohortIdsOf: (projectId: number, distinctId: string) => Promise<number[]>) =>
  async (projectId: number, distinctId: string): Promise<ReadonlySet<number>> =>
    new Set(await cohortIdsOf(projectId, distinctId));
