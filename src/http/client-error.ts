import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorBody } from './errors';

/**
 * Requests Node's HTTP parser cannot read (a malformed request line or header, headers past the
 * size limit, a client too slow to send them) never reach fastify's routing; they are answered
 * here, on the raw socket, in the same error shape as everything else.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, body]: [number, ErrorBody] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, { type: 'client_error', code: 'request_timeout', detail: 'The request was not received in time.', attr: null }]
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, { type: 'client_error', code: 'headers_too_large', detail: 'The request headers are too large.', attr: null }]
        : [400, { type: 'invalid_request', code: 'malformed_request', detail: 'The request is not valid HTTP.', attr: null }];
  const text = JSON.stringify(body);
  if (socket.writable)
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${text}`);
  socket.destroy(err);
}
