export { storeFiles } from './store-files';
export { ProjectionRunner } from './projection-runner';
export type { Runner } from '../store/runner';
export { handleCommand, ConcurrencyConflictError, type CommandContext } from './command-handler';
export { handleCommandAndWait, appendAndWait, type WaitForReadModels } from './read-your-writes';
export { fold, type Decider } from './decider';
export { digestProjection } from './digest';
export { withNextId } from './sequential-id';
export type { QuarantinedEvent, QuarantineSummary } from '../store/runner';
