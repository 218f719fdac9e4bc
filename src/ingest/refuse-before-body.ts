import { type MaybePromise, whenReady } from '../runtime/loading-cache';
import { invalidApiKey, missingApiKey } from './errors';
import { keyOutsideBody } from './key-outside-body';
import type { AdmitIngest } from './rate-limited';

export interface KeyBeforeBody {
  apiKey: string;
  projectId: number;
}

/**
 * The refusals that cost nothing, made before the body is decoded (and maybe inflated): with a key
 * in the query string, an unknown key answers 401 and a project over its limits 429 without the
 * body ever being inflated. Undefined when the key can only be in the body.
 */
export function refuseBeforeBody(
  query: Record<string, string | undefined>,
  bodyBytes: number,
  projectIdForToken: (token: string) => MaybePromise<number | undefined>,
  admit?: AdmitIngest,
): MaybePromise<KeyBeforeBody | undefined> {
  const apiKey = keyOutsideBody(query);
  if (apiKey === undefined) return undefined;
  return whenReady(projectIdForToken(apiKey), (projectId) => {
    if (projectId === undefined) throw invalidApiKey();
    admit?.beforeBody?.(projectId, bodyBytes);
    return { apiKey, projectId };
  });
}

/**
 * The request's project once the body is decoded: the query string's key when it had one (already
 * checked), else the body's. A known key answers from memory without yielding; only an unseen one
 * waits for the read model.
 */
export function projectAfterBody(
  early: KeyBeforeBody | undefined,
  bodyKey: string | undefined,
  projectIdForToken: (token: string) => MaybePromise<number | undefined>,
): MaybePromise<number> {
  if (early !== undefined) return early.projectId;
  if (!bodyKey) throw missingApiKey();
  return whenReady(projectIdForToken(bodyKey), (projectId) => {
    if (projectId === undefined) throw invalidApiKey();
    return projectId;
  });
}

/**
 * The decoder's keyGate (decode-body.ts) for a request whose key is in its body: a large JSON text
 * is parsed only if it names a known project key (its limits consulted), else refused as without a
 * key (401 missing_api_key) or with an unknown one (401 invalid_api_key), as parsing would have.
 * Undefined when the key came in the query string: it is already checked.
 */
export function keyGateFor(
  early: KeyBeforeBody | undefined,
  bodyBytes: number,
  projectIdForToken: (token: string) => MaybePromise<number | undefined>,
  admit?: AdmitIngest,
): ((keys: string[]) => MaybePromise<void>) | undefined {
  if (early !== undefined) return undefined;
  return async (keys) => {
    if (keys.length === 0) throw missingApiKey();
    for (const key of keys) {
      const projectId = await projectIdForToken(key);
      if (projectId === undefined) continue;
      admit?.beforeBody?.(projectId, bodyBytes);
      return;
    }
    throw invalidApiKey();
  };
}
