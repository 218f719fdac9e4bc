import type { MaybePromise } from '../runtime/loading-cache';
import { decodeBody, type DecodeBodyInput } from './decode-body';
import type { AdmitIngest } from './rate-limited';
import { keyGateFor, projectAfterBody, refuseBeforeBody } from './refuse-before-body';

/**
 * An ingestion body decoded with the cheap refusals first (refuse-before-body.ts): a key in the
 * query string is checked, and the project's limits consulted, before anything is inflated; a large
 * body is parsed only if it names a known key. `extract` turns the payload into the request's batch
 * (and may refuse it); the project is the query string's key's when it had one, else the batch's.
 * Shared by every path that takes events (`/batch` and friends, `/s`).
 */
export async function decodeKeyedBody<B extends { apiKey: string | undefined }>(
  request: DecodeBodyInput & { admit?: AdmitIngest },
  projectIdForToken: (token: string) => MaybePromise<number | undefined>,
  extract: (payload: unknown) => B,
): Promise<{ batch: B; projectId: number }> {
  const bodyBytes = request.body.length;
  const refused = refuseBeforeBody(request.query, bodyBytes, projectIdForToken, request.admit);
  const early = refused instanceof Promise ? await refused : refused;
  const decoded = decodeBody({ ...request, keyGate: keyGateFor(early, bodyBytes, projectIdForToken, request.admit) });
  // A small body decodes at once; only a large one waits for its inflation and parsing off the loop.
  const batch = extract(decoded instanceof Promise ? await decoded : decoded);
  const resolved = projectAfterBody(early, batch.apiKey, projectIdForToken);
  return { batch, projectId: resolved instanceof Promise ? await resolved : resolved };
}
