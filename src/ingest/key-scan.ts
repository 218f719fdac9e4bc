import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The project keys a large JSON text names, found without parsing it: the values of every
 * `"api_key"`, `"token"` and `"$token"` member written plainly (`"token": "phc_…"`), looking at
 * the first `max` occurrences of each name (posthog-js repeats the key in every event). Native
 * byte search, far cheaper than parsing (docs/ingestion.md): a large body naming no known key is
 * refused before it is parsed (see decode-body's `keyGate`). A key written with escapes is not found; SDKs never
 * write one so.
 */
export function keysInJson(bytes: Buffer, max = 64): string[] {
  const scan = new KeyScan(bytes, max);
  scan.until(bytes.length);
  return scan.keys();
}

/** How much of a text keysInJsonInTurns searches per turn. */
export const KEY_SCAN_WINDOW = 4 * 1024 * 1024;

/**
 * keysInJson, searching KEY_SCAN_WINDOW bytes per turn of the event loop: over a 64 MiB text the
 * search is a long turn on a busy machine when the key is at its end (or absent).
 */
export async function keysInJsonInTurns(bytes: Buffer, max = 64): Promise<string[]> {
  const scan = new KeyScan(bytes, max);
  for (let end = KEY_SCAN_WINDOW; ; end += KEY_SCAN_WINDOW) {
    scan.until(Math.min(end, bytes.length));
    if (end >= bytes.length) return scan.keys();
    await nextTurn();
  }
}

/** The search's state: per member name, where it goes on and how many it has seen. */
class KeyScan {
  private readonly found = new Set<string>();
  private readonly names = [
    { name: 'api_key"', from: 0, seen: 0 },
    { name: 'token"', from: 0, seen: 0 },
  ];

  constructor(
    private readonly bytes: Buffer,
    private readonly max: number,
  ) {}

  /** Searches occurrences that start before `end` (a value after one is read whole, past `end` if need be). */
  until(end: number): void {
    const bytes = this.bytes;
    for (const n of this.names) {
      // A view ending where an occurrence starting before `end` ends: native search over the window only.
      const window = bytes.subarray(0, Math.min(bytes.length, end + n.name.length - 1));
      while (n.seen < this.max) {
        const at = window.indexOf(n.name, n.from);
        if (at === -1) {
          n.from = Math.max(n.from, end);
          break;
        }
        n.seen++;
        n.from = at + n.name.length;
        // `"api_key"`, `"token"` or `"$token"` as a whole member name, not the end of a longer one.
        const before = bytes[at - 1] === 0x24 /* $ */ && n.name === 'token"' ? at - 2 : at - 1;
        if (bytes[before] !== 0x22 /* " */) continue;
        const value = stringValueAt(bytes, n.from);
        if (value !== undefined) this.found.add(value);
      }
    }
  }

  keys(): string[] {
    return [...this.found];
  }
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
