import { PostHog } from 'posthog-node';
import type { TestServer } from './server';

/** The official SDK pointed at a test server: batches flushed on demand, no background timers. */
export function posthogClient(server: TestServer, options: { personalApiKey?: string; flushAt?: number } = {}) {
  return new PostHog(server.credentials.project_api_key, {
    host: server.url,
    flushAt: options.flushAt ?? 50,
    flushInterval: 0,
    personalApiKey: options.personalApiKey,
    featureFlagsPollingInterval: options.personalApiKey ? 60_000 : undefined,
    fetchRetryCount: 0,
  });
}

/** Waits until every projection has applied the whole log. */
export async function settle(server: TestServer) {
  const head = await server.runtime.log.head();
  await server.runtime.runner.waitFor(head);
}
