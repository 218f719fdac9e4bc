import { eventually } from './eventually';
import { json } from './json';

/** Every uuid the events API lists for `firstPage`, following `next` links (newest first). */
export async function listedUuids(firstPage: string, personalKey: string): Promise<string[]> {
  const uuids: string[] = [];
  let next: string | null = firstPage;
  while (next) {
    const page = (await json(await fetch(next, { headers: { authorization: `Bearer ${personalKey}` } }))) as { next: string | null; results: { uuid: string }[] };
    uuids.push(...page.results.map((e) => e.uuid));
    next = page.next;
  }
  return uuids;
}

/**
 * The list once every `expected` uuid is in it: wait until all are there (a drain in log order has
 * then nothing earlier on its way), then list once more for the caller to assert on.
 */
export async function listedOnceAllArrived(firstPage: string, personalKey: string, expected: readonly string[], timeoutMs = 60_000): Promise<string[]> {
  await eventually(
    () => listedUuids(firstPage, personalKey),
    (listed) => {
      const seen = new Set(listed);
      return expected.every((u) => seen.has(u));
    },
    timeoutMs,
  );
  return listedUuids(firstPage, personalKey);
}
