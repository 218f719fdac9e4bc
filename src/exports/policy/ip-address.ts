import { isIPv4, isIPv6 } from 'node:net';

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
export type AddressBytes = number[];

function ipv4Bytes(address: string): AddressBytes {
  return address.split('.').map(Number);
}

/** Expands `::`, and an IPv4 tail (`::ffff:1.2.3.4`), into 16 bytes. */
function ipv6Bytes(address: string): AddressBytes {
  let text = address.split('%')[0];
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = ipv4Bytes(text.slice(lastColon + 1));
    text = text.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === null ? [] : groups(rest);
  const words = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * The address a connection really reaches: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * (`::a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`) IPv6 forms are reduced to their IPv4 address,
 * so a private IPv4 target cannot hide behind IPv6 notation.
 */
export function addressBytes(address: string): AddressBytes | null {
  if (isIPv4(address)) return ipv4Bytes(address);
  if (!isIPv6(address.split('%')[0])) return null;
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 10) && b[10] === 0xff && b[11] === 0xff;
  const compatible = zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && b[15] === 1);
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12);
  return mapped || compatible || nat64 ? b.slice(12) : b;
}

export interface Cidr {
  bytes: AddressBytes;
  bits: number;
}

/** `10.0.0.0/8`, `fe80::/10`, or a single address (`127.0.0.1` = /32). Null when unreadable. */
export function parseCidr(text: string): Cidr | null {
  const [address, bitsText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const bytes = isIPv4(address) ? ipv4Bytes(address) : isIPv6(address) ? ipv6Bytes(address) : null;
  if (!bytes) return null;
  const max = bytes.length * 8;
  const bits = bitsText === undefined ? max : /^\d+$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= max)) return null;
  return { bytes, bits };
}

export function inCidr(address: AddressBytes, cidr: Cidr): boolean {
  if (address.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.bits; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((address[bit >> 3] & mask) !== (cidr.bytes[bit >> 3] & mask)) return false;
  }
  return true;
}

const range = (text: string, kind: string) => ({ cidr: parseCidr(text)!, kind });

/** Where a destination must not connect unless the operator allows it (why, in the error). */
const NON_PUBLIC = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'private (CGNAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved or broadcast'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fe80::/10', 'link-local'),
  range('fc00::/7', 'unique-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

/** The kind of non-public range `address` lies in (`loopback`, `private`, ...), or null if public. */
export function nonPublicKind(address: string): string | null {
  const bytes = addressBytes(address);
  if (!bytes) return 'unreadable';
  return NON_PUBLIC.find((r) => inCidr(bytes, r.cidr))?.kind ?? null;
}
