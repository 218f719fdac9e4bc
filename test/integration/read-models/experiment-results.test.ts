import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentsProjection } from '../../../projections/experiments';
import { experimentQueries } from '../../../projections/experiments-queries';
import { experimentResultsQueries } from '../../../projections/experiments-results-queries';
import { ingestionProjection } from '../../../projections/ingestion';
import type { SqlSession } from '../../../src/store/sql';
import { parseMetric } from '../../../src/experiments';
import { computeMetric } from '../../../src/experiments/results/compute';
import { startTestServer, type TestServer } from '../../support/server';
import { at, createExperiment, ingestEvents, type TimedEvent } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();

const T0 = new Date(Date.now() - 2 * 3_600_000).toISOString();
const START = '2024-01-01T00:00:00.000Z';
const range = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const called = (flag: string, distinct_id: string, variant: unknown): TimedEvent => ({
  event: '$feature_flag_called',
  distinct_id,
  timestamp: at(T0, -1),
  properties: { $feature_flag: flag, $feature_flag_response: variant, [`$feature/${flag}`]: variant },
});

/**
 * Variants `control` and `1`: the SDKs send variants as JSON strings, so a numeric or boolean flag
 * response (1, true) is no variant on either engine, although PostgreSQL's `->>` would read it as '1'.
 * Persons merge (anonymous views counted for the identified buyer), and events before the start
 * date do not count.
 */
function history(): TimedEvent[] {
  const out: TimedEvent[] = [];
  const view = (distinct_id: string, variant: unknown, timestamp = T0): TimedEvent => ({ event: '$pageview', distinct_id, timestamp, properties: { '$feature/ex': variant } });
  range(30, 'c').forEach((id, i) => {
    const viewer = i < 5 ? `anon-${id}` : id;
    out.push(called('ex', viewer, 'control'), view(viewer, 'control'), view(viewer, 'control'));
    if (i < 20) out.push({ event: 'purchase', distinct_id: id, timestamp: at(T0, 1), properties: { '$feature/ex': 'control' } });
    if (i < 5) out.push({ event: '$identify', distinct_id: id, timestamp: at(T0, 2), properties: { $anon_distinct_id: viewer } });
  });
  range(25, 't').forEach((id, i) => {
    out.push(called('ex', id, '1'), view(id, '1'));
    if (i < 10) out.push(view(id, '1'), { event: 'purchase', distinct_id: id, timestamp: at(T0, 1), properties: { '$feature/ex': '1' } });
  });
  range(8, 'n').forEach((id) => {
    out.push(called('ex', id, 1), view(id, 1), { event: 'purchase', distinct_id: id, timestamp: at(T0, 1), properties: { '$feature/ex': 1 } });
  });
  range(4, 'b').forEach((id) => out.push(called('ex', id, true), view(id, true), view(id, '1', '2023-06-01T00:00:00.000Z')));
  out.push(called('other', 'c0', '1'), view('c1', null), { event: '$pageview', distinct_id: 'c2', timestamp: T0 });
  return out;
}

describe.runIf(USER !== null)('experiment results on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_experiment_results');
  let s: TestServer;
  let stores: FoldedStores;
  let projectId: number;
  let experimentId: number;
  const funnel = { insight: 'FUNNELS', events: [{ id: '$pageview', order: 0 }, { id: 'purchase', order: 1 }] };
  const flagFirst = { insight: 'FUNNELS', events: [{ id: '$feature_flag_called', order: 0 }, { id: 'purchase', order: 1 }] };
  const total = { insight: 'TRENDS', events: [{ id: '$pageview' }] };
  const dau = { insight: 'TRENDS', events: [{ id: '$pageview', math: 'dau' }] };

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    await ingestEvents(s, history());
    experimentId = (
      await createExperiment(s, {
        name: 'Both engines',
        feature_flag_key: 'ex',
        start_date: START,
        parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: '1', rollout_percentage: 50 }] },
        filters: funnel,
      })
    ).id;
    stores = await fold(s.runtime.log, [ingestionProjection, experimentsProjection], { withFlags: true });
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  const resultsOn = async (db: SqlSession, filters: Record<string, unknown>) => {
    const experiment = (await experimentQueries(db).byId(projectId, experimentId))!;
    return computeMetric(experimentResultsQueries(db), experiment, parseMetric(filters), filters);
  };

  it('counts funnels the same, exposures from a separate pass or from the flag-call rows', async () => {
    const viewed = await stores.both((db) => resultsOn(db, funnel));
    expect(viewed.postgres).toEqual(viewed.sqlite);
    expect(viewed.sqlite.variants).toEqual([
      { key: 'control', success_count: 20, failure_count: 10 },
      { key: '1', success_count: 10, failure_count: 15 },
    ]);
    expect(viewed.sqlite.exposures).toEqual({ control: 30, 1: 25 });
    const fromCalls = await stores.both((db) => resultsOn(db, flagFirst));
    expect(fromCalls.postgres).toEqual(fromCalls.sqlite);
    expect(fromCalls.sqlite.exposures).toEqual({ control: 30, 1: 25 });
  });

  it('counts trends the same: events (total) and persons (dau)', async () => {
    const events = await stores.both((db) => resultsOn(db, total));
    expect(events.postgres).toEqual(events.sqlite);
    expect(events.sqlite.variants.map((v) => 'count' in v && v.count)).toEqual([60, 35]);
    const persons = await stores.both((db) => resultsOn(db, dau));
    expect(persons.postgres).toEqual(persons.sqlite);
    // The five anonymous viewers are their identified persons now: one person each, as before.
    expect(persons.sqlite.variants.map((v) => 'count' in v && v.count)).toEqual([30, 25]);
  });

  it('finds the flag among the events the same way', async () => {
    const carries = (flagKey: string | null, events: string[]) =>
      stores.both((db) => experimentResultsQueries(db).carriesFeatureProperty(projectId, events, START, flagKey));
    expect(await carries('ex', ['$pageview'])).toEqual({ sqlite: true, postgres: true });
    expect(await carries(null, ['purchase'])).toEqual({ sqlite: true, postgres: true });
    expect(await carries('e', ['$pageview', 'purchase'])).toEqual({ sqlite: false, postgres: false });
  });
});
