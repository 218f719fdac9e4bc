export { FlagDefinitionCache, toDefinition } from './definition-cache';
export { FlagRequest } from './flag-request';
export { evaluateRequest, type FlagDataSource } from './evaluate-request';
export { flagsV2Body } from './flags-json';
export { ProjectCache } from './project-cache';
