import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Destination, ExportRecord } from '../destination';
import { nonRetryableError, retryableError } from '../destination';
import { describeError, isTransientNetworkError } from '../network-errors';
import { httpConfigSchema, type HttpConfig } from './http-config';
import { batchBody } from './posthog-batch';

const gzipAsync = promisify(gzip);

/** Events per request, well under the 20 MB `/batch/` body limit for typical events. */
const EVENTS_PER_REQUEST = 1000;
const REQUEST_TIMEOUT_MS = 60_000;

async function post(config: HttpConfig, records: readonly ExportRecord[]): Promise<number> {
  const body = await gzipAsync(batchBody(config.token, records));
  let response: Response;
  try {
    response = await fetch(config.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body,
      // Following a redirect would turn the POST into a GET and drop the events.
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    if (isTransientNetworkError(err)) throw retryableError(`Could not reach ${config.url}: ${describeError(err)}`, err);
    throw nonRetryableError(`Request to ${config.url} failed: ${describeError(err)}`, err);
  }
  if (response.ok) {
    await response.body?.cancel();
    return body.length;
  }
  const text = (await response.text().catch(() => '')).slice(0, 300);
  const message = `${config.url} answered HTTP ${response.status}${text ? `: ${text}` : ''}`;
  // 408 and 429 are the receiver asking us to come back later.
  const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
  throw retryable ? retryableError(message) : nonRetryableError(message);
}

/** Exports into any PostHog-compatible `/batch/` endpoint, e.g. another instance of this service. */
export const httpDestination: Destination<HttpConfig> = {
  type: 'HTTP',
  configSchema: httpConfigSchema,
  secretFields: ['token'],
  async write(config, ctx, batches) {
    let records = 0;
    let bytes = 0;
    let pending: ExportRecord[] = [];
    const flush = async () => {
      bytes += await post(config, pending);
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
    ctx.log('INFO', `Posted ${records} events to ${config.url}`);
    return { recordsCompleted: records, bytesExported: bytes };
  },
};
