/** Pure feature-flag evaluation engine: no I/O, no clock (`now` is passed in), no randomness. */
export { flagHash } from './hash';
export { matchProperty, matchCohort } from './operators';
export { parseRelativeDate, parseIsoDate } from './dates';
export { parseSemver, compareSemver, matchSemver } from './semver';
export { regexSearch, regexProblem, MAX_PATTERN_LENGTH, MAX_SUBJECT_LENGTH, MAX_PROGRAM_SIZE } from './regex';
export { RegexBudget, RegexBudgetExceeded, REQUEST_REGEX_UNITS, REQUEST_REGEX_MS, CLOCK_AFTER_UNITS, RESERVED_FOR_CHEAP, CHEAP_SEARCH } from './regex-budget';
export { pickVariant } from './variants';
export { evaluateFlag, evaluateAll, type EvaluateAllOptions } from './evaluate';
export {
  decideResponse,
  flagsResponse,
  flagDetail,
  remoteConfig,
  parseApiVersion,
  type FlagDetail,
  type ResponseOptions,
} from './responses';
export type {
  PropertyFilter,
  ConditionSet,
  Variant,
  FlagFilters,
  FlagDefinition,
  EvaluationContext,
  ReasonCode,
  EvaluationReason,
  FlagEvaluation,
  EvaluateAllResult,
} from './types';
