import { evaluateSet } from './conditions';
import type { Subject } from './subject';
import type { FlagDefinition } from './types';

/**
 * Early-access enrollment, decided before the release conditions. Returns whether the person is
 * in, or null when the person has not made an enrollment choice (then the normal sets decide).
 *
 * Two stored forms exist: `feature_enrollment: true` reads `$feature_enrollment/<key>` directly;
 * the older `super_groups` holds one condition set over that property. The set only applies when
 * the person carries one of the properties it filters on, so an absent opt-in falls through.
 */
export function enrollmentDecision(flag: FlagDefinition, subject: Subject, bucket: string): boolean | null {
  if (flag.filters?.feature_enrollment === true) {
    const { found, value } = subject.person(`$feature_enrollment/${flag.key}`);
    if (!found || value === undefined) return null;
    return value === true || value === 'true';
  }
  const set = flag.filters?.super_groups?.[0];
  const filters = set?.properties;
  if (!set || !filters || filters.length === 0) return null;
  const relevant = filters.some((filter) => {
    const { found, value } = subject.person(filter.key);
    return found && value !== undefined;
  });
  if (!relevant) return null;
  // Enrollment is a person-level choice even on group flags.
  return evaluateSet(flag.key, set, { subject, aggregation: null }, bucket) === 'match';
}
