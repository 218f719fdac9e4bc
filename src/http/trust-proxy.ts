import { isIP } from 'node:net';

/** Names @fastify/proxy-addr knows for whole ranges. */
const RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.includes(entry)) return true;
  const slash = entry.indexOf('/');
  if (slash === -1) return isIP(entry) !== 0;
  const [address, bits] = [entry.slice(0, slash), entry.slice(slash + 1)];
  const family = isIP(address);
  if (family === 0) return false;
  // proxy-addr also takes a dotted netmask after an IPv4 address.
  if (family === 4 && isIP(bits) === 4) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY as fastify's `trustProxy`: whose X-Forwarded-Host / X-Forwarded-Proto (and Forwarded
 * address chain) are believed. `false` (the default) believes no one, so a client cannot choose
 * the host that `next`/`previous` links point at; `true` believes any hop; otherwise the listed
 * proxy addresses, CIDRs or range names. A bad entry stops start-up with its name.
 */
export function trustProxySetting(value: string): boolean | string[] {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries)
    if (!isAddressOrRange(entry))
      throw new Error(`TRUST_PROXY: '${entry}' is not an IP address, a CIDR or one of ${RANGE_NAMES.join(', ')} (or use true / false).`);
  return entries;
}
