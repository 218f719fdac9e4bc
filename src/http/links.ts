import type { FastifyRequest } from 'fastify';

/** A host as a URL may carry it: a name or IPv4 address, or a bracketed IPv6 one, and a port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** Where the request arrived: the socket's own address, which no header can choose. */
function listenOrigin(request: FastifyRequest): string {
  const { localAddress, localPort } = request.socket;
  const host = localAddress === undefined ? 'localhost' : localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return `http://${host}${localPort === undefined ? '' : `:${localPort}`}`;
}

/**
 * The origin absolute links start with: the Host (or, behind a trusted proxy, X-Forwarded-Host
 * and -Proto, as fastify's trustProxy decides) when it is a well-formed host, else the address
 * the request arrived at. A malformed header shapes no link and fails no request.
 */
export function requestOrigin(request: FastifyRequest): string {
  const protocol = request.protocol;
  const host = request.host;
  if ((protocol !== 'http' && protocol !== 'https') || !HOST.test(host)) return listenOrigin(request);
  const port = /:(\d+)$/.exec(host)?.[1];
  if (port !== undefined && Number(port) > 65535) return listenOrigin(request);
  return `${protocol}://${host}`;
}

/** The request's own URL, absolute, with some query parameters set (a page's `next`, say); null removes one. */
export function linkWith(request: FastifyRequest, params: Record<string, string | null>): string {
  const raw = request.url;
  const q = raw.indexOf('?');
  // The path as received: it matched a route, so it is a well-formed, decodable path.
  const path = q === -1 ? raw : raw.slice(0, q);
  const search = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  for (const [key, value] of Object.entries(params)) {
    if (value === null) search.delete(key);
    else search.set(key, value);
  }
  return `${requestOrigin(request)}${path}?${search.toString()}`;
}
