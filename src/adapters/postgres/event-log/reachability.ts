/** Socket errors that mean the server, or the way to it, is gone. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs of a server shutting down or refusing sessions: 57P01-03 (shutdowns, cannot connect now), 53300 (too many connections). */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What node-postgres says when a socket closes under a query or a connection attempt times out. */
const CLIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i;

/** Whether an error says the log's server cannot be reached, rather than that a statement failed. */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && CLIENT_MESSAGES.test(message);
}
