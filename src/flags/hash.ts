import { hash } from 'node:crypto';

// 0xFFFFFFFFFFFFFFF is not representable as a double and rounds to 2^60; every PostHog SDK and the
// server divide by that rounded value, so we must too to land users in the same buckets.
const LONG_SCALE = 2 ** 60;

/**
 * PostHog's bucketing hash: a stable number in [0, 1] for (flag key, id, salt).
 * Rollout uses salt "" and variant selection uses salt "variant".
 */
export function flagHash(key: string, id: string, salt = ''): number {
  const hex = hash('sha1', `${key}.${id}${salt}`, 'hex');
  // The first 60 bits as 28 + 32: both halves and hi * 2^32 are exact doubles, so the single
  // addition rounds the 60-bit integer exactly as one correctly rounded conversion would.
  return (parseInt(hex.slice(0, 7), 16) * 4294967296 + parseInt(hex.slice(7, 15), 16)) / LONG_SCALE;
}
