import type { Runner } from '../store/runner';

/**
 * The quarantine part of `/_health`: events some projection skipped. The service keeps serving, so
 * quarantines make the status `degraded` but never the answer 503 (that is for stopped projections).
 */
export function quarantineHealth(runner: Runner) {
  const { count, latest } = runner.quarantines();
  return { degraded: count > 0, quarantined: { count, latest } };
}
