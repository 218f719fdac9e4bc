import { sha1First60Bits } from './sha1';

// 0xFFFFFFFFFFFFFFF is not representable as a double and rounds to 2^60; every PostHog SDK and the
// server divide by that rounded value, so we must too to land users in the same buckets.
const LONG_SCALE = 2 ** 60;

/**
 * PostHog's bucketing hash: a stable number in [0, 1] for (flag key, id, salt): the first 15 hex
 * digits of sha1(`${key}.${id}${salt}`) over 2^60. Rollout uses salt "" and variant selection
 * uses salt "variant".
 */
export function flagHash(key: string, id: string, salt = ''): number {
  return sha1First60Bits(key, '.', id, salt) / LONG_SCALE;
}
