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
