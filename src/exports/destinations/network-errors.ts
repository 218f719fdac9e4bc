/** Socket-level failures that a later attempt can get past. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  // A name that does not resolve may be a DNS outage as much as a typo; retries are bounded anyway.
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const TRANSIENT_NAMES = new Set(['TimeoutError', 'TimeoutException', 'RequestTimeout']);

interface ErrorLike {
  code?: unknown;
  name?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Walks `cause` chains and AggregateErrors (Node 20 tries IPv6 and IPv4 for `localhost` and
 * reports both refusals together) looking for a transient socket failure.
 */
export function isTransientNetworkError(err: unknown, depth = 0): boolean {
  if (depth > 5 || typeof err !== 'object' || err === null) return false;
  const e = err as ErrorLike;
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  if (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isTransientNetworkError(inner, depth + 1))) return true;
  return isTransientNetworkError(e.cause, depth + 1);
}

/** A one-line description, following `cause` (fetch says only "fetch failed") and naming socket codes. */
export function describeError(err: unknown, depth = 0): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : undefined;
  let message = err.message || (Array.isArray(e.errors) ? 'every connection attempt failed' : err.name);
  if (code && !message.includes(code)) message += ` (${code})`;
  if (depth < 3 && e.cause instanceof Error) message += `: ${describeError(e.cause, depth + 1)}`;
  return message;
}
