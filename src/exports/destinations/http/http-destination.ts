import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { NetworkPolicy } from '../../policy';
import type { Destination, ExportRecord } from '../destination';
import { nonRetryableError, policyOf, retryableError } from '../destination';
import { isTransientNetworkError } from '../network-errors';
import { httpConfigSchema, type HttpConfig } from './http-config';
import { postBytes } from './http-post';
import { batchBody } from './posthog-batch';

const gzipAsync = promisify(gzip);

/** Events per request, well under the 20 MB `/batch/` body limit for typical events. */
const EVENTS_PER_REQUEST = 1000;
const REQUEST_TIMEOUT_MS = 60_000;

/** A fixed reason per status class: the receiver's body is never repeated. */
function reasonFor(status: number): string {
  if (status === 401 || status === 403) return 'the receiver refused the token';
  if (status === 408 || status === 429) return 'the receiver asked to retry later';
  if (status >= 300 && status < 400) return 'redirects are not followed';
  if (status >= 500) return 'the receiver failed';
  return 'the receiver refused the request';
}

/** The URL without credentials, query or fragment: what messages may show. */
const shown = (url: URL) => `${url.protocol}//${url.host}${url.pathname}`;

async function post(config: HttpConfig, network: NetworkPolicy, records: readonly ExportRecord[]): Promise<number> {
  const body = await gzipAsync(batchBody(config.token, records));
  const url = new URL(config.url);
  let status: number;
  try {
    status = await postBytes(url, body, {
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      timeoutMs: REQUEST_TIMEOUT_MS,
      network,
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'EXPORT_TARGET_REFUSED') throw err;
    // Refused, reset and timed out read the same: a run must not tell which ports are open.
    const message = `Could not connect to ${shown(url)}`;
    throw isTransientNetworkError(err) ? retryableError(message, err) : nonRetryableError(message, err);
  }
  if (status >= 200 && status < 300) return body.length;
  const message = `${shown(url)} answered HTTP ${status} (${reasonFor(status)})`;
  // 408 and 429 are the receiver asking us to come back later.
  const retryable = status >= 500 || status === 408 || status === 429;
  throw retryable ? retryableError(message) : nonRetryableError(message);
}

/** Exports into any PostHog-compatible `/batch/` endpoint, e.g. another instance of this service. */
export const httpDestination: Destination<HttpConfig> = {
  type: 'HTTP',
  configSchema: httpConfigSchema,
  secretFields: ['token'],
  targetFields: ['url'],
  async checkTarget(config, policy) {
    await policy.network.checkHost(new URL(config.url).hostname);
  },
  async write(config, ctx, batches) {
    const { network } = policyOf(ctx);
    let records = 0;
    let bytes = 0;
    let pending: ExportRecord[] = [];
    const flush = async () => {
      bytes += await post(config, network, pending);
      records += pending.length;
      pending = [];
    };
    for await (const batch of batches) {
      for (const record of batch) {
        pending.push(record);
        if (pending.length >= EVENTS_PER_REQUEST) await flush();
      }
    }
    if (pending.length > 0) await flush();
    ctx.log('INFO', `Posted ${records} events to ${shown(new URL(config.url))}`);
    return { recordsCompleted: records, bytesExported: bytes };
  },
};
