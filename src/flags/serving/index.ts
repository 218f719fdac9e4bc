export { FlagDefinitionCache, toDefinition } from './definition-cache';
export { FlagRequest, parseFlagRequest } from './flag-request';
export { evaluateRequest, type FlagDataSource } from './evaluate-request';
export { flagsV2Body, flagsV2Parts, FlagsV2Parts } from './flags-json';
export { ProjectCache } from './project-cache';
export { AnswerMemo } from './answer-memo';
export { requestState, type RequestState } from './evaluate-request';
export { explainState, type FlagReason } from './explain-request';
