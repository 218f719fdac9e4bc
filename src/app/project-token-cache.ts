import { LoadingCache, type MaybePromise } from '../runtime/loading-cache';

/**
 * Project API key → project id, memoised: keys never change once issued, so a hit never goes stale
 * and is answered synchronously. Unknown keys are not cached (a project created a moment later must
 * work at once).
 */
export function projectTokenCache(lookup: (token: string) => Promise<number | undefined>) {
  const known = new LoadingCache<string, number | undefined>(lookup, (id) => id !== undefined);
  return (token: string): MaybePromise<number | undefined> => known.get(token);
}
