import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request with exactly the headers and bytes given: fetch refuses to set Host, adds its
 * own headers and cannot send invalid UTF-8 as text, which is what these tests need to send.
 */
export function rawRequest(
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<RawResponse> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: base.host, ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = httpRequest(
      { host: base.hostname, port: base.port, method: options.method, path: options.path, headers, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The spec's error body, or a description of why the text is not one. */
export function errorShapeProblem(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `not an object: ${text.slice(0, 200)}`;
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'attr,code,detail,type') return `keys ${keys}: ${text.slice(0, 200)}`;
  const b = body as Record<string, unknown>;
  if (typeof b.type !== 'string' || typeof b.code !== 'string' || typeof b.detail !== 'string' || (b.attr !== null && typeof b.attr !== 'string'))
    return `field types: ${text.slice(0, 200)}`;
  return null;
}

/** Writes bytes on a fresh connection and resolves with everything the server sends back. */
export function rawExchange(baseUrl: string, bytes: string | Buffer): Promise<string> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: base.hostname, port: Number(base.port) }, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}
