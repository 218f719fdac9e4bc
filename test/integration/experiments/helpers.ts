import { expect } from 'vitest';
import type { Scope } from '../../../streams';
import { json, type Json } from '../../support/json';
import { settle } from '../../support/posthog';
import type { TestServer } from '../../support/server';

export const experimentsPath = (s: TestServer, rest = '') => `/api/projects/${s.credentials.project_id}/experiments/${rest}`;

export function send(s: TestServer, method: string, path: string, body?: unknown, key?: string): Promise<Response> {
  return s.api(path, { method, body: body === undefined ? undefined : JSON.stringify(body), key });
}

/** Creates an experiment over HTTP; anything but 201 fails the calling test. */
export async function createExperiment(s: TestServer, body: Record<string, unknown>): Promise<Json> {
  const res = await send(s, 'POST', experimentsPath(s), body);
  const out = await json(res);
  expect(res.status, JSON.stringify(out)).toBe(201);
  return out;
}

/** Asserts a Django-style error body and returns it. */
export async function expectError(res: Response, status: number, detail?: string | RegExp, attr?: string | null): Promise<Json> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(Object.keys(body).sort()).toEqual(['attr', 'code', 'detail', 'type']);
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else if (detail) expect(body.detail).toMatch(detail);
  if (attr !== undefined) expect(body.attr).toBe(attr);
  return body;
}

/** A personal key of the bootstrap user with only these scopes. */
export async function keyWith(s: TestServer, scopes: Scope[]): Promise<string> {
  const user = (await s.runtime.queries.access.firstUserOf(s.credentials.organization_id))!;
  const created = await s.runtime.access.createPersonalKey({ userId: user.id, label: 'test', scopes, scopedProjects: null }, { type: 'system' });
  return created.key;
}

export interface TimedEvent {
  event: string;
  distinct_id: string;
  properties?: Record<string, unknown>;
  timestamp?: string;
}

/** Ingests through the public /batch/ endpoint (with the given project key) and waits for every projection. */
export async function ingestEvents(s: TestServer, events: TimedEvent[], apiKey = s.credentials.project_api_key): Promise<void> {
  for (let i = 0; i < events.length; i += 1000) {
    const batch = events.slice(i, i + 1000).map((e) => ({ ...e, properties: e.properties ?? {} }));
    const res = await fetch(`${s.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey, batch }),
    });
    expect(res.status).toBe(200);
  }
  await settle(s);
}

/** ISO time `minutes` after `base`. */
export const at = (base: string, minutes: number) => new Date(Date.parse(base) + minutes * 60_000).toISOString();
