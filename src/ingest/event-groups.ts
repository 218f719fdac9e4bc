import type { IngestionWarning } from './ingestion-warning';
import { isJsonObject } from './json-object';

/**
 * Names Object.prototype carries (`__proto__`, `constructor`, `toString`, ...): as group types
 * they would name something every plain object already has, and from a public request they only
 * used up the project's five group-type slots (issue 21). Never a group type.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** PostHog stores group types and keys in columns of 400 characters (GroupTypeMapping, Group). */
export const MAX_GROUP_TYPE_LENGTH = 400;
export const MAX_GROUP_KEY_LENGTH = 400;

export const isAcceptableGroupType = (type: string): boolean =>
  type !== '' && type.length <= MAX_GROUP_TYPE_LENGTH && !PROTOTYPE_NAMES.has(type);

const tooLongKey = (key: unknown): boolean => typeof key === 'string' && key.length > MAX_GROUP_KEY_LENGTH;

/**
 * Drops from the event what cannot name a group, keeping the event (as PostHog keeps an event whose
 * group it cannot use): `$groups` entries with a prototype-named or over-long type, or an over-long
 * key; and the group of a `$groupidentify` whose `$group_type` or `$group_key` is such (the event is
 * kept, the group is not created). Returns the warning to record, if anything was dropped.
 */
export function dropUnusableGroups(event: string, properties: Record<string, unknown>): IngestionWarning | undefined {
  const dropped: string[] = [];
  const groups = properties.$groups;
  if (isJsonObject(groups)) {
    for (const type of Object.keys(groups)) {
      if (isAcceptableGroupType(type) && !tooLongKey(groups[type])) continue;
      dropped.push(type.slice(0, 64));
      delete groups[type];
    }
  }
  if (event === '$groupidentify' || event === '$group_identify') {
    const type = properties.$group_type;
    if (typeof type === 'string' && (!isAcceptableGroupType(type) || tooLongKey(properties.$group_key))) {
      dropped.push(type.slice(0, 64));
      delete properties.$group_type;
    }
  }
  if (dropped.length === 0) return undefined;
  return {
    type: 'invalid_group',
    details: { groupTypes: dropped, reason: `a group type must not be a name of Object.prototype, types and keys at most ${MAX_GROUP_KEY_LENGTH} characters` },
  };
}
