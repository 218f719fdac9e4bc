/**
 * An upper bound on the number of JSON values a JSON text holds, read from its bytes without
 * parsing: one per container opened (`{`, `[`) and one per `,` outside strings, plus one. Stops
 * counting once past `max`. A tight loop over bytes, run (on a decode thread) before a large text
 * is parsed: 64 MiB of `[{},{},…]` holds ~20 M values, and parsing them costs a hundred times
 * what counting them does (docs/benchmarks.md).
 */
export function jsonValuesAtMost(bytes: Uint8Array, max: number): number {
  let count = 1;
  let inString = false;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c /* \ */) i++;
      else if (b === 0x22 /* " */) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x2c /* , */ || b === 0x7b /* { */ || b === 0x5b /* [ */) {
      if (++count > max) return count;
    }
  }
  return count;
}
