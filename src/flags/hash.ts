import { createHash } from 'node:crypto';

// 0xFFFFFFFFFFFFFFF is not representable as a double and rounds to 2^60; every PostHog SDK and the
// server divide by that rounded value, so we must too to land users in the same buckets.
const LONG_SCALE = Number(0xfffffffffffffffn);

/**
 * PostHog's bucketing hash: a stable number in [0, 1] for (flag key, id, salt).
 * Rollout uses salt "" and variant selection uses salt "variant".
 */
export function flagHash(key: string, id: string, salt = ''): number {
  const hex = createHash('sha1').update(`${key}.${id}${salt}`, 'utf8').digest('hex');
  // BigInt keeps all 60 bits until the single, correctly rounded conversion to a double.
  return Number(BigInt(`0x${hex.slice(0, 15)}`)) / LONG_SCALE;
}
