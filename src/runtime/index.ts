export { openRuntime, storeFiles, type Runtime, type RuntimeOptions } from './open';
export { ProjectionRunner, type Runner } from './projection-runner';
export { handleCommand, ConcurrencyConflictError, type CommandContext } from './command-handler';
export { fold, type Decider } from './decider';
export { digestProjection } from './digest';
export { withNextId } from './sequential-id';
export { writeCredentialsFile } from './credentials-file';
