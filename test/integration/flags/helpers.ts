import { expect } from 'vitest';
import { settle } from '../../support/posthog';
import { json, type Json } from '../../support/json';
import type { TestServer } from '../../support/server';

/** Creates a flag through the management API; anything but 201 fails the calling test. */
export async function createFlag(s: TestServer, body: Record<string, unknown>): Promise<Json> {
  const res = await s.api(`/api/projects/${s.credentials.project_id}/feature_flags/`, { method: 'POST', body: JSON.stringify(body) });
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out;
}

/** A public flag-endpoint POST with a JSON body (the project key is added unless the body has one). */
export function postFlags(s: TestServer, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  const withKey = 'api_key' in body || 'token' in body ? body : { api_key: s.credentials.project_api_key, ...body };
  return fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(withKey) });
}

/** POST and parse, asserting a 200 so a failing request cannot masquerade as "flag off". */
export async function evaluate(s: TestServer, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Json> {
  const res = await postFlags(s, path, body, headers);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(200);
  return out;
}

export interface RawEvent {
  event: string;
  distinct_id: string;
  properties?: Record<string, unknown>;
}

/** Ingests events through the public /batch/ endpoint and waits until every projection applied them. */
export async function ingest(s: TestServer, events: RawEvent[]): Promise<void> {
  const res = await fetch(`${s.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.credentials.project_api_key, batch: events.map((e) => ({ ...e, properties: e.properties ?? {} })) }),
  });
  expect(res.status).toBe(200);
  await settle(s);
}

/** Runs `fn` over `items` with at most `width` in flight: fast enough, gentle on a shared machine. */
export async function inParallel<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
