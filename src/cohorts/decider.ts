import { cohortEvents, type CohortCreatedData, type CohortEvent } from '../../streams';
import { conflict, notFound } from '../errors';
import type { Decider } from '../runtime/decider';

export interface CohortState {
  exists: boolean;
  deleted: boolean;
  cohortId: number;
  projectId: number;
}

export type CohortCommand = ({ type: 'CreateCohort' } & CohortCreatedData) | { type: 'DeleteCohort' };

/** A cohort: created once per id (a taken id is a conflict, so withNextId moves on), soft-deleted once. */
export const cohortDecider: Decider<CohortCommand, CohortEvent, CohortState> = {
  events: cohortEvents,
  initialState: () => ({ exists: false, deleted: false, cohortId: 0, projectId: 0 }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'CohortCreated':
        return { ...s, exists: true, cohortId: e.data.cohortId, projectId: e.data.projectId };
      case 'CohortDeleted':
        return { ...s, deleted: true };
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'CreateCohort': {
        if (s.exists) throw conflict(`cohort ${c.cohortId} already exists`);
        const { type: _t, ...data } = c;
        return [{ type: 'CohortCreated', data }];
      }
      case 'DeleteCohort':
        if (!s.exists || s.deleted) throw notFound();
        return [{ type: 'CohortDeleted', data: { cohortId: s.cohortId, projectId: s.projectId } }];
    }
  },
};
