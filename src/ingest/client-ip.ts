import { isIP } from 'node:net';

export type HeaderBag = Record<string, string | string[] | undefined>;

/** Both spellings: the standard header, and the Django META name some proxies forward verbatim. */
const FORWARDED_HEADERS = ['x-forwarded-for', 'http_x_forwarded_for'];

/**
 * The client address PostHog records as `$ip`: the first `X-Forwarded-For` entry with any port
 * removed, else the socket address. Like PostHog this trusts the header as sent; deployments
 * not behind a proxy that overwrites it should strip it before the request gets here.
 * Entries that are not IP addresses (`unknown`, garbage) fall back to the socket address.
 */
export function clientIp(headers: HeaderBag, socketAddress: string | undefined): string | undefined {
  const forwarded = firstForwarded(headers);
  const fromHeader = forwarded === undefined ? undefined : normalizeAddress(forwarded);
  if (fromHeader !== undefined) return fromHeader;
  return socketAddress === undefined ? undefined : normalizeAddress(socketAddress);
}

// Runs on every flag request: a for-in over the headers, in the same order as `Object.entries`,
// without the array of pairs that made.
function firstForwarded(headers: HeaderBag): string | undefined {
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (!FORWARDED_HEADERS.includes(name.toLowerCase()) || value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(',') : value;
    const first = joined.split(',')[0]?.trim();
    if (first) return first;
  }
  return undefined;
}

/** `1.2.3.4:567` and `[::1]:567` lose the port; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes IPv4. */
export function normalizeAddress(address: string): string | undefined {
  // Requests come in runs from the same peer (a keep-alive connection, a proxy): the last answer
  // is kept, which spares three regular expressions and a parse per request.
  if (address === lastAddress) return lastNormalized;
  const normalized = normalizeAddressUncached(address);
  lastAddress = address;
  lastNormalized = normalized;
  return normalized;
}

let lastAddress: string | undefined;
let lastNormalized: string | undefined;

function normalizeAddressUncached(address: string): string | undefined {
  let host = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed !== null) host = bracketed[1];
  else if (/^[^:]+:\d+$/.test(host)) host = host.slice(0, host.lastIndexOf(':'));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(host);
  if (mapped !== null) host = mapped[1];
  return isIP(host) === 0 ? undefined : host;
}
