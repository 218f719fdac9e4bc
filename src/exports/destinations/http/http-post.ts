import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { NetworkPolicy } from '../../policy';

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  network: NetworkPolicy;
}

/**
 * POSTs `body` and resolves with the status code. The socket resolves the host through the
 * network policy (the checked address is the one used), redirects are not followed, and the
 * response body is drained unread: nothing a server says ends up in a log or an error.
 */
export function postBytes(url: URL, body: Buffer, options: PostOptions): Promise<number> {
  options.network.checkLiteral(url.hostname);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'Content-Length': String(body.length) },
        lookup: options.network.lookup as never,
        timeout: options.timeoutMs,
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(body);
  });
}
