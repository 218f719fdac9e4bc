/**
 * Project API key → project id, memoised: keys never change once issued, so a hit never goes stale.
 * Unknown keys are not cached (a project created a moment later must work at once).
 */
export function projectTokenCache(lookup: (token: string) => number | undefined) {
  const known = new Map<string, number>();
  return (token: string): number | undefined => {
    const hit = known.get(token);
    if (hit !== undefined) return hit;
    const id = lookup(token);
    if (id !== undefined) known.set(token, id);
    return id;
  };
}
