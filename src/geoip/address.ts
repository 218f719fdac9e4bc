import { isIP } from 'node:net';

/** Which database to ask, and the address to ask it about. */
export interface LookupTarget {
  family: 4 | 6;
  address: string;
}

type Range = readonly [base: number, prefix: number];

/**
 * IPv4 blocks that never route on the public internet (RFC 6890 and friends). They cannot say
 * where a user is, and skipping them keeps private traffic off the database entirely.
 */
const NON_PUBLIC_V4: readonly Range[] = [
  [v4(0, 0, 0, 0), 8], // "this network", includes the unspecified 0.0.0.0
  [v4(10, 0, 0, 0), 8], // private
  [v4(100, 64, 0, 0), 10], // carrier-grade NAT
  [v4(127, 0, 0, 0), 8], // loopback
  [v4(169, 254, 0, 0), 16], // link-local
  [v4(172, 16, 0, 0), 12], // private
  [v4(192, 0, 0, 0), 24], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24], // documentation
  [v4(192, 168, 0, 0), 16], // private
  [v4(198, 18, 0, 0), 15], // benchmarking
  [v4(198, 51, 100, 0), 24], // documentation
  [v4(203, 0, 113, 0), 24], // documentation
  [v4(224, 0, 0, 0), 4], // multicast
  [v4(240, 0, 0, 0), 4], // reserved, includes broadcast
];

/**
 * Where to look an address up, or null when a lookup could not place a user: malformed input,
 * loopback, private, link-local, CGNAT, unique-local, unspecified and other non-routable
 * addresses. IPv4-mapped IPv6 (`::ffff:1.2.3.4`, also in hex) is answered from the IPv4 data,
 * which is the only place those addresses are recorded.
 */
export function lookupTarget(raw: string): LookupTarget | null {
  const ip = raw.trim();
  const family = isIP(ip);
  if (family === 4) return isPublicV4(parseV4(ip)) ? { family: 4, address: ip } : null;
  if (family !== 6) return null;
  const address = stripZone(ip);
  const h = parseV6(address);
  if (h === null) return null;
  if (h[0] === 0 && h[1] === 0 && h[2] === 0 && h[3] === 0 && h[4] === 0) {
    if (h[5] === 0xffff) {
      const mapped = ((h[6] << 16) | h[7]) >>> 0;
      return isPublicV4(mapped) ? { family: 4, address: formatV4(mapped) } : null;
    }
    // ::/96 holds the unspecified and loopback addresses and the retired IPv4-compatible form.
    if (h[5] === 0) return null;
  }
  return isPublicV6(h) ? { family: 6, address } : null;
}

function isPublicV4(addr: number): boolean {
  for (let i = 0; i < NON_PUBLIC_V4.length; i++) {
    const [base, prefix] = NON_PUBLIC_V4[i];
    const shift = 32 - prefix;
    if (addr >>> shift === base >>> shift) return false;
  }
  return true;
}

function isPublicV6(h: readonly number[]): boolean {
  const first = h[0];
  if ((first & 0xfe00) === 0xfc00) return false; // unique-local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((first & 0xffc0) === 0xfec0) return false; // retired site-local fec0::/10
  if ((first & 0xff00) === 0xff00) return false; // multicast ff00::/8
  if (first === 0x2001 && h[1] === 0x0db8) return false; // documentation 2001:db8::/32
  return true;
}

function v4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/**
 * Only called on strings `isIP` accepted as IPv4, so four decimal octets are guaranteed. A char
 * loop rather than split/map: this runs on every flag evaluation.
 */
function parseV4(ip: string): number {
  let addr = 0;
  let octet = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46 /* . */) {
      addr = (addr << 8) | octet;
      octet = 0;
    } else {
      octet = octet * 10 + (c - 48);
    }
  }
  return ((addr << 8) | octet) >>> 0;
}

function formatV4(addr: number): string {
  return `${addr >>> 24}.${(addr >>> 16) & 0xff}.${(addr >>> 8) & 0xff}.${addr & 0xff}`;
}

/** Zone ids (`fe80::1%eth0`) name a local interface; they say nothing about location. */
function stripZone(ip: string): string {
  const percent = ip.indexOf('%');
  return percent === -1 ? ip : ip.slice(0, percent);
}

/** The eight 16-bit groups of an address `isIP` accepted as IPv6 (a trailing dotted quad allowed). */
function parseV6(ip: string): number[] | null {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // Rewrite the dotted quad as two hex groups so one parser handles every form.
    const quad = parseV4(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(quad >>> 16).toString(16)}:${(quad & 0xffff).toString(16)}`;
  }
  const [left, right] = splitOnce(text, '::');
  const head = groups(left);
  const tail = right === undefined ? [] : groups(right);
  const missing = 8 - head.length - tail.length;
  if (right === undefined ? missing !== 0 : missing < 0) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}

function groups(text: string): number[] {
  return text === '' ? [] : text.split(':').map((g) => parseInt(g, 16));
}
