/**
 * The project keys a large JSON text names, found without parsing it: the values of every
 * `"api_key"`, `"token"` and `"$token"` member written plainly (`"token": "phc_…"`), looking at
 * the first `max` occurrences of each name (posthog-js repeats the key in every event). Native byte search, ~10–40 ms for 64 MiB, where parsing a 64 MiB array of empty
 * objects holds the event loop for tens of seconds: a large body naming no known key is refused
 * before that (see decode-body's `keyGate`). A key written with escapes is not found; SDKs never
 * write one so.
 */
export function keysInJson(bytes: Buffer, max = 64): string[] {
  const keys = new Set<string>();
  for (const name of ['api_key"', 'token"']) {
    let from = 0;
    for (let seen = 0; seen < max; seen++) {
      const at = bytes.indexOf(name, from);
      if (at === -1) break;
      from = at + name.length;
      // `"api_key"`, `"token"` or `"$token"` as a whole member name, not the end of a longer one.
      const before = bytes[at - 1] === 0x24 /* $ */ && name === 'token"' ? at - 2 : at - 1;
      if (bytes[before] !== 0x22 /* " */) continue;
      const value = stringValueAt(bytes, from);
      if (value !== undefined) keys.add(value);
    }
  }
  return [...keys];
}

const MAX_KEY_LENGTH = 200;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** After a member name: `: "value"` (no escapes, at most 200 bytes), or undefined. */
function stringValueAt(bytes: Buffer, from: number): string | undefined {
  let i = from;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== 0x3a /* : */) return undefined;
  i++;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== 0x22) return undefined;
  const start = i + 1;
  const end = bytes.indexOf(0x22, start);
  if (end === -1 || end - start > MAX_KEY_LENGTH) return undefined;
  const value = bytes.toString('utf8', start, end);
  return value.includes('\\') || value.trim() === '' ? undefined : value.trim();
}

/** Whether bytes start (after whitespace) like a JSON object or array: only then can they be scanned. */
export function looksLikeJson(bytes: Buffer): boolean {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // BOM
  while (i < bytes.length && isSpace(bytes[i])) i++;
  return bytes[i] === 0x7b /* { */ || bytes[i] === 0x5b /* [ */;
}
