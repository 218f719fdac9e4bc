/**
 * The merge chain of issue 21 (item 4) as /batch/ events, all `$merge_dangerously`: each pair of
 * fresh ids makes a person, then the grown person is merged INTO the new pair, so a fold that
 * re-points a merged person's ids at every merge costs the square of the chain. At least `merges`
 * events (an odd count: the chain closes on a pair); every id ends on the person of the last `b_` id.
 */
export function mergeChainBatch(prefix: string, merges: number): { events: Record<string, unknown>[]; ids: string[]; survivor: string } {
  const pairs = Math.ceil((merges + 1) / 2);
  const at = Date.parse('2026-01-01T00:00:00.000Z');
  const events: Record<string, unknown>[] = [];
  const ids: string[] = [];
  const merge = (into: string, other: string) =>
    events.push({ event: '$merge_dangerously', distinct_id: into, properties: { alias: other }, timestamp: new Date(at + events.length).toISOString() });
  for (let k = 0; k < pairs; k++) {
    ids.push(`${prefix}a_${k}`, `${prefix}b_${k}`);
    merge(`${prefix}b_${k}`, `${prefix}a_${k}`);
    if (k > 0) merge(`${prefix}a_${k}`, `${prefix}b_${k - 1}`);
  }
  return { events, ids, survivor: `${prefix}b_${pairs - 1}` };
}
