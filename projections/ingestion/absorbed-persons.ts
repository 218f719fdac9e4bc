import type { SqlSession } from '../../src/store/sql';

/**
 * The persons merged away while EventsCaptured records fold, each with the person it was merged
 * into. Re-pointing a merged person's distinct ids at each merge writes as many rows as it holds, so
 * a record whose merges keep folding the grown person into another (a chain, read in one direction)
 * cost the square of its length. Instead the rows are re-pointed once, after the record (or the run
 * of records the fold is handed together), straight at the person they end on (repointAbsorbed),
 * and lookups in between follow these links.
 * A merged-away person's uuid is never minted again (it derives from a distinct id that keeps a
 * person), so no row of a live person is ever caught by the re-pointing.
 */
export type Absorbed = Map<string, string>;

/** The live person `personId` has ended in, through the merges not yet written to the rows. */
export function survivorOf(absorbed: Absorbed | undefined, personId: string): string {
  if (!absorbed?.size) return personId;
  let root = personId;
  for (let next = absorbed.get(root); next !== undefined; next = absorbed.get(root)) root = next;
  // Each link passed now points at the end: a chain walked again costs one step.
  for (let at = personId; at !== root; ) {
    const next = absorbed.get(at)!;
    absorbed.set(at, root);
    at = next;
  }
  return root;
}

/**
 * Writes the merges to the distinct-id rows: every row of a merged-away person, once, in
 * one statement per surviving person (a chain, however long, is one).
 */
export async function repointAbsorbed(db: SqlSession, absorbed: Absorbed): Promise<void> {
  const gone = new Map<string, string[]>();
  for (const personId of absorbed.keys()) {
    const survivor = survivorOf(absorbed, personId);
    const ids = gone.get(survivor);
    if (ids) ids.push(personId);
    else gone.set(survivor, [personId]);
  }
  // Map order is the order of the merges: the same statements on every fold of the record.
  for (const [survivor, ids] of gone) {
    await db.run(`UPDATE person_distinct_ids SET person_id = ? WHERE ${db.dialect.inJsonArray('person_id', 'text')}`, survivor, JSON.stringify(ids));
  }
  absorbed.clear();
}
