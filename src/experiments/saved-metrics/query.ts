import { validationError } from '../../errors';
import { checkMetric } from '../metrics/fields';

/**
 * A saved metric's query: required, and a current `ExperimentMetric` checked exactly as an
 * experiment's `metrics` are, with PostHog's "Invalid metric: " prefix (legacy kinds refused).
 */
export function checkSavedMetricQuery(query: unknown): Record<string, unknown> {
  const empty = query === null || query === undefined || (typeof query === 'object' && !Array.isArray(query) && Object.keys(query).length === 0);
  if (empty) throw validationError('Query is required to create a saved metric', 'query', 'invalid_input');
  return checkMetric(query, 'Invalid metric: ', 'query');
}
