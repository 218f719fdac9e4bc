import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type Json } from '../../support/json';
import { startTestServer, type TestServer } from '../../support/server';
import { at, createExperiment, experimentsPath, ingestEvents, keyWith, type TimedEvent } from './helpers';

/**
 * Issue 23 item 4: GET experiments/:id/exposures/?distinct_id= lists what the results count for one
 * person: exposures, metric events (through a merge, within the date range) and the variant. Summed
 * over every person it gives back the results' own exposure counts.
 */
let s: TestServer;
let id: number;
const T0 = new Date(Date.now() - 2 * 3_600_000).toISOString();
const START = '2024-01-01T00:00:00.000Z';
const called = (distinct_id: string, variant: string, timestamp = at(T0, -1)): TimedEvent => ({
  event: '$feature_flag_called',
  distinct_id,
  timestamp,
  properties: { $feature_flag: 'ex', $feature_flag_response: variant, '$feature/ex': variant },
});
const event = (name: string, distinct_id: string, variant: unknown, timestamp = T0): TimedEvent => ({ event: name, distinct_id, timestamp, properties: { '$feature/ex': variant } });
const persons = [...Array.from({ length: 6 }, (_, i) => `c${i}`), ...Array.from({ length: 4 }, (_, i) => `t${i}`)];

const exposures = async (distinctId: string): Promise<Json> => {
  const res = await s.api(experimentsPath(s, `${id}/exposures/?distinct_id=${encodeURIComponent(distinctId)}`));
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
};

beforeAll(async () => {
  s = await startTestServer();
  const events: TimedEvent[] = [];
  for (const p of persons) {
    const variant = p.startsWith('c') ? 'control' : 'test';
    events.push(called(p, variant), event('$pageview', p, variant), event('click', p, variant));
    if (p.endsWith('0') || p.endsWith('1')) events.push(event('purchase', p, variant, at(T0, 1)));
  }
  // c0 viewed anonymously before identifying: its anonymous events count for c0.
  events.push(called('anon-c0', 'control', at(T0, -3)), event('click', 'anon-c0', 'control', at(T0, -2)));
  events.push({ event: '$identify', distinct_id: 'c0', timestamp: at(T0, 2), properties: { $anon_distinct_id: 'anon-c0' } });
  // Before the start date, another flag's call, and a click without the flag: not counted.
  events.push(event('click', 'c0', 'test', '2023-06-01T00:00:00.000Z'), { event: '$feature_flag_called', distinct_id: 'c0', timestamp: T0, properties: { $feature_flag: 'other', $feature_flag_response: true } });
  events.push({ event: 'click', distinct_id: 'c0', timestamp: at(T0, 3) });
  await ingestEvents(s, events);
  const funnel = { insight: 'FUNNELS', events: [{ id: '$pageview', order: 0 }, { id: 'purchase', order: 1 }] };
  id = (
    await createExperiment(s, {
      name: 'Exposed',
      feature_flag_key: 'ex',
      start_date: START,
      filters: funnel,
      secondary_metrics: [{ name: 'Clicks', filters: { insight: 'TRENDS', events: [{ id: 'click' }] } }],
    })
  ).id;
});
afterAll(() => s.close());

describe('GET experiments/:id/exposures/', () => {
  it("lists one person's exposures and metric events, through a merge and within the date range", async () => {
    const r = await exposures('anon-c0');
    expect(r.distinct_id).toBe('anon-c0');
    expect(r.person_id).toBeTypeOf('string');
    expect(r.variant).toBe('control');
    expect(r.exposures.map((e: Json) => [e.distinct_id, e.variant, e.counted])).toEqual([
      ['anon-c0', 'control', true],
      ['c0', 'control', true],
    ]);
    const [primary, clicks] = r.metrics;
    expect(primary).toMatchObject({ name: 'primary', kind: 'primary', insight: 'FUNNELS', variant: 'control', converted: true, error: null });
    expect(primary.events.map((e: Json) => e.event)).toEqual(['$pageview', 'purchase']);
    expect(clicks).toMatchObject({ name: 'Clicks', kind: 'secondary', insight: 'TRENDS', variant: 'control', converted: true });
    // The anonymous click and c0's own; the one before the start date is not read; the one without the flag is not counted.
    expect(clicks.events.map((e: Json) => [e.distinct_id, e.variant, e.counted])).toEqual([
      ['anon-c0', 'control', true],
      ['c0', 'control', true],
      ['c0', null, false],
    ]);
    // The person is the same whichever of their distinct ids is asked.
    expect(await exposures('c0')).toEqual({ ...r, distinct_id: 'c0' });
  });

  it('shows a person who did not convert, and one the experiment never saw', async () => {
    const t3 = await exposures('t3');
    expect(t3.variant).toBe('test');
    expect(t3.metrics[0]).toMatchObject({ variant: 'test', converted: false });
    const stranger = await exposures('never-seen');
    expect(stranger).toMatchObject({ person_id: null, variant: null, exposures: [] });
    expect(stranger.metrics[0]).toMatchObject({ variant: null, converted: null, events: [] });
  });

  it("adds up to the results' own counts", async () => {
    const res = await s.api(experimentsPath(s, `${id}/results/`));
    const results = (await json(res)).result;
    const each = await Promise.all(persons.map(exposures));
    const byVariant: Record<string, number> = { control: 0, test: 0 };
    const converted: Record<string, number> = { control: 0, test: 0 };
    for (const p of each) {
      byVariant[p.variant]++;
      if (p.metrics[0].converted) converted[p.metrics[0].variant]++;
    }
    expect(byVariant).toEqual(results.exposures);
    expect(results.variants.map((v: Json) => [v.key, v.success_count])).toEqual(Object.entries(converted));
  });

  it('needs experiment:read and a distinct_id; an unknown experiment is a 404', async () => {
    const other = await keyWith(s, ['feature_flag:read']);
    expect((await s.api(experimentsPath(s, `${id}/exposures/?distinct_id=c0`), { key: other })).status).toBe(403);
    const missing = await s.api(experimentsPath(s, `${id}/exposures/`));
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ detail: 'distinct_id is required', attr: 'distinct_id' });
    expect((await s.api(experimentsPath(s, '99999/exposures/?distinct_id=c0'))).status).toBe(404);
  });
});
