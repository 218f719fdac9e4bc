export { CohortService, exposureFilters, type CohortServiceDeps, type ExposureCohortInput } from './service';
export { cohortDecider, type CohortCommand, type CohortState } from './decider';
export { personCohorts } from './membership';
