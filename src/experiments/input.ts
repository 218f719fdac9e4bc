import type { SavedMetricLink } from '../../streams';
import { validationError } from '../errors';

/** The writable fields of an experiment, parsed (dates normalised to toISOString()). */
export interface ExperimentFields extends BaseFields, CurrentFields {}

interface BaseFields {
  name: string;
  description: string;
  startDate: string | null;
  endDate: string | null;
  parameters: unknown;
  secondaryMetrics: unknown;
  filters: unknown;
  archived: boolean;
}

/** PostHog's current fields (compat §15.1); metrics carry their server-given uuid and fingerprint. */
export interface CurrentFields {
  metrics: Record<string, unknown>[];
  metricsSecondary: Record<string, unknown>[];
  primaryMetricsOrderedUuids: string[];
  secondaryMetricsOrderedUuids: string[];
  statsConfig: Record<string, unknown> | null;
  exposureCriteria: Record<string, unknown> | null;
  conclusion: string | null;
  conclusionComment: string | null;
}

/** The current fields of an experiment recorded before they existed. */
export const CURRENT_FIELD_DEFAULTS = {
  metrics: [],
  metricsSecondary: [],
  primaryMetricsOrderedUuids: [],
  secondaryMetricsOrderedUuids: [],
  statsConfig: null,
  exposureCriteria: null,
  conclusion: null,
  conclusionComment: null,
} as const satisfies Partial<CurrentFields>;

/** The current fields are optional on create: absent ones take their defaults. */
export interface CreateExperimentInput extends BaseFields, Partial<CurrentFields> {
  featureFlagKey: string;
  savedMetrics?: SavedMetricLink[];
}

/** `savedMetrics` (PostHog's write-only `saved_metrics_ids`): a given list replaces the links. */
export type UpdateExperimentInput = Partial<ExperimentFields> & { savedMetrics?: SavedMetricLink[] };

/**
 * A PATCH as its schema read it: the changes, and the keys it may not change with their values
 * (whether `feature_flag_key` is one depends on the stored experiment, see checkPatch).
 */
export interface ExperimentPatch {
  changes: UpdateExperimentInput;
  fixed: Record<string, unknown>;
}

/** An experiment cannot end before it starts (equal instants are allowed); checked on the result of a write. */
export function checkDateOrder(startDate: string | null, endDate: string | null) {
  if (startDate !== null && endDate !== null && Date.parse(endDate) < Date.parse(startDate))
    throw validationError('The end date must not be before the start date.', 'end_date', 'invalid');
}

/**
 * What of a PATCH depends on the stored experiment: `feature_flag_key` only when unchanged (every
 * other fixed key is named in PostHog's "Can't update keys" error), and the dates checked together
 * with the stored ones they will sit beside.
 */
export function checkPatch(
  patch: ExperimentPatch,
  currentFlagKey: string,
  current: { startDate: string | null; endDate: string | null } = { startDate: null, endDate: null },
): UpdateExperimentInput {
  const refused = Object.keys(patch.fixed)
    .filter((k) => !(k === 'feature_flag_key' && patch.fixed[k] === currentFlagKey))
    .sort();
  if (refused.length) throw validationError(`Can't update keys: ${refused.join(', ')} on Experiment`);
  const { startDate, endDate } = patch.changes;
  // Only a PATCH that moves a date is checked, so an older experiment stored the wrong way round stays editable.
  if (startDate !== undefined || endDate !== undefined)
    checkDateOrder(startDate === undefined ? current.startDate : startDate, endDate === undefined ? current.endDate : endDate);
  return patch.changes;
}
