/**
 * `no_data` mirrors PostHog's ValidationError code for a missing control or
 * test variant; `invalid_input` covers malformed counts, keys or splits.
 */
export type ExperimentStatsErrorCode = 'no_data' | 'invalid_input';

export class ExperimentStatsError extends Error {
  readonly code: ExperimentStatsErrorCode;

  constructor(code: ExperimentStatsErrorCode, message: string) {
    super(message);
    this.name = 'ExperimentStatsError';
    this.code = code;
  }
}
