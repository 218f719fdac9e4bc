/**
 * Verdicts of expensive regex evaluations, by pattern and subject, kept across requests.
 *
 * Why a cache rather than a worker: evaluation stays synchronous (a request whose reads are all
 * hits is answered in the turn it arrived, see serving/evaluate-request.ts), and the request budget
 * (regex-budget.ts) already bounds what one evaluation may hold the loop for. What the cache adds:
 * the same expensive pattern against the same value is searched once, whether it is repeated in
 * one request (eight flags on one condition) or across requests (the same person asking again),
 * and a hit costs no budget. Only verdicts are kept (true, false, or a search's own limit reached,
 * which is deterministic); a search stopped by the request's budget depends on the request and is
 * never kept.
 *
 * Bounded: at most VERDICT_CACHE_SIZE entries (patterns ≤ 1,000 and subjects ≤ 10,000 characters,
 * so a few MB at most), the oldest dropped first; a hit moves its entry to the back.
 */
import { CHEAP_SEARCH } from './regex-budget';

export const VERDICT_CACHE_SIZE = 256;
/** Below this estimated cost (units, see regex-budget.ts) searching is cheaper than hashing the key. */
export const CACHE_MIN_COST = CHEAP_SEARCH;

const verdicts = new Map<string, boolean | null>();

// The pattern's length first, so that no pattern/subject pair can spell another pair's key.
const keyOf = (pattern: string, subject: string) => `${pattern.length}:${pattern}${subject}`;

/** The kept verdict, or undefined when there is none. */
export function cachedVerdict(pattern: string, subject: string): boolean | null | undefined {
  const key = keyOf(pattern, subject);
  const hit = verdicts.get(key);
  if (hit !== undefined) {
    verdicts.delete(key);
    verdicts.set(key, hit);
  }
  return hit;
}

export function keepVerdict(pattern: string, subject: string, verdict: boolean | null): void {
  if (verdicts.size >= VERDICT_CACHE_SIZE) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(keyOf(pattern, subject), verdict);
}

/** For tests: forget every kept verdict. */
export function clearVerdicts(): void {
  verdicts.clear();
}
