export { FlagService, type FlagServiceDeps, type CreateFlagInput, type UpdateFlagInput } from './service';
export { flagDecider, type FlagCommand, type FlagState } from './decider';
export { validateFilters, validateFlagKey, groupTypeIndexesOf, OPERATORS } from './filters';
