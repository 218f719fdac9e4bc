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

describe('events API: person_id', () => {
  it("lists the events of every distinct id the person holds, those sent before a merge included, and its next links keep the filter", async () => {
    const send = async (batch: object[]) => {
      const res = await fetch(`${s.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: s.credentials.project_api_key, batch }) });
      expect(res.status).toBe(200);
    };
    const at = (n: number) => new Date(START + n * 1000).toISOString();
    await send([
      { event: 'before-merge', distinct_id: 'anon-p', timestamp: at(1), properties: {} },
      { event: 'own', distinct_id: 'known-p', timestamp: at(2), properties: {} },
      { event: 'stranger', distinct_id: 'other-p', timestamp: at(3), properties: {} },
    ]);
    await send([{ event: '$identify', distinct_id: 'known-p', timestamp: at(4), properties: { $anon_distinct_id: 'anon-p' } }]);
    await send([{ event: 'after-merge', distinct_id: 'anon-p', timestamp: at(5), properties: {} }]);
    await settle(s);
    const person = (await json(await s.api(`/api/projects/${s.credentials.project_id}/persons/?distinct_id=known-p`))).results[0];
    expect(person.distinct_ids.sort()).toEqual(['anon-p', 'known-p']);
    const page = await json(await s.api(`${events}?person_id=${person.id}&limit=2`));
    expect(page.results.map((e: { event: string }) => e.event)).toEqual(['after-merge', '$identify']);
    expect(new URL(page.next).searchParams.get('person_id')).toBe(person.id);
    const rest = await json(await s.api(page.next.replace(s.url, '')));
    expect(rest.results.map((e: { event: string }) => e.event)).toEqual(['own', 'before-merge']);
    expect((await json(await s.api(`${events}?person_id=${randomUUID()}`))).results).toEqual([]);
  });
});
