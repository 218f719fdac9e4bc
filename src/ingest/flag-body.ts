/** Project key lookup order of the flag endpoints (as ingestion): api_key, token, $token. */
export function extractApiKey(body: { api_key?: string; token?: string; $token?: string }): string | undefined {
  return body.api_key || body.token || body.$token || undefined;
}
