import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { listedUuids } from '../../support/listed-events';
import { settle } from '../../support/posthog';
import { startTestServer, type TestServer } from '../../support/server';

let s: TestServer;
let events: string;
beforeAll(async () => {
  s = await startTestServer();
  events = `/api/projects/${s.credentials.project_id}/events/`;
});
afterAll(() => s.close());

const START = Date.parse('2024-04-01T00:00:00Z');

/** Captures `n` events of `name` over `times` distinct seconds from `second` on; their uuids. */
async function capture(name: string, n: number, second: number, times: number): Promise<string[]> {
  const batch = Array.from({ length: n }, (_, i) => ({
    event: name,
    distinct_id: `d${i % 5}`,
    uuid: randomUUID(),
    timestamp: new Date(START + (second + (i % times)) * 1000).toISOString(),
    properties: {},
  }));
  const res = await fetch(`${s.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.credentials.project_api_key, batch }),
  });
  expect(res.status).toBe(200);
  return batch.map((e) => e.uuid);
}

describe('events API: next links', () => {
  it('carry before (the last row\'s time) and before_uuid instead of an offset, and list every event once while more arrive', async () => {
    const existing = await capture('paged', 300, 0, 12);
    await settle(s);
    const first = await json(await s.api(`${events}?event=paged&limit=40&offset=0`));
    const next = new URL(first.next);
    const last = first.results[39];
    expect(Object.fromEntries(next.searchParams)).toEqual({ event: 'paged', limit: '40', before: last.timestamp, before_uuid: last.uuid });
    expect(first.previous).toBeNull();

    // Between pages, newer, tied and older events arrive and are folded before the next page is read.
    const listed: string[] = [];
    const arrived: string[] = [];
    let url: string | null = `${s.url}${events}?event=paged&limit=40`;
    for (let k = 0; url; k++) {
      const page = await json(await s.api(url.slice(s.url.length)));
      listed.push(...page.results.map((e: { uuid: string }) => e.uuid));
      url = page.next;
      arrived.push(...(await capture('paged', 4, 1000 + k, 2)), ...(await capture('paged', 3, k % 12, 1)), ...(await capture('paged', 2, -100 - k, 2)));
      await settle(s);
    }
    // Older ones are met again further down: the arrivals were visible to the pages read after them.
    expect(listed.filter((u) => arrived.includes(u)).length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    const seen = new Set(listed);
    expect(existing.filter((u) => !seen.has(u))).toEqual([]);
  });

  it('an explicit offset still pages a small list, with an offset previous link', async () => {
    await capture('small', 10, 0, 10);
    await settle(s);
    const all = (await json(await s.api(`${events}?event=small&limit=100`))).results.map((e: { uuid: string }) => e.uuid);
    expect(all).toHaveLength(10);
    const page = await json(await s.api(`${events}?event=small&limit=3&offset=3`));
    expect(page.results.map((e: { uuid: string }) => e.uuid)).toEqual(all.slice(3, 6));
    expect(new URL(page.previous).searchParams.get('offset')).toBe('0');
    const rest = await listedUuids(page.next, s.credentials.personal_api_key);
    expect(rest).toEqual(all.slice(6));
  });

  it('before_uuid without before is a 400 naming it', async () => {
    const res = await s.api(`${events}?before_uuid=${randomUUID()}`);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'before_uuid' });
  });
});
