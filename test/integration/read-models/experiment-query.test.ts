import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentMetricQueries } from '../../../projections/experiment-metric-queries';
import { experimentsProjection } from '../../../projections/experiments';
import { experimentQueries } from '../../../projections/experiments-queries';
import { ingestionProjection } from '../../../projections/ingestion';
import { ExperimentQueryRunner } from '../../../src/experiments/query/runner';
import type { SqlSession } from '../../../src/store/sql';
import { startTestServer, type TestServer } from '../../support/server';
import { at, createExperiment, ingestEvents, type TimedEvent } from '../experiments/helpers';
import { bothStores, pgUserForSuite, type FoldedStores } from './folded-stores';

const USER = await pgUserForSuite();
const T0 = new Date(Date.now() - 5 * 86_400_000).toISOString();

/**
 * 60 control and 60 test persons with a numeric `amount` (and a text one: "12.5"), pre-exposure
 * purchases for CUPED, pageviews for funnels and ratios, and persons in both variants (excluded).
 */
function history(): TimedEvent[] {
  const out: TimedEvent[] = [];
  for (let i = 0; i < 120; i++) {
    const id = `q${i}`;
    const variant = i % 2 ? 'test' : 'control';
    const exposed = at(T0, 60 + i);
    out.push({ event: '$feature_flag_called', distinct_id: id, timestamp: exposed, properties: { $feature_flag: 'qx', $feature_flag_response: variant } });
    if (i % 3 === 0) out.push({ event: 'purchase', distinct_id: id, timestamp: at(T0, 1), properties: { amount: 5 + (i % 4) } });
    out.push({ event: '$pageview', distinct_id: id, timestamp: at(exposed, 1) });
    if (i % 4 !== 0) out.push({ event: 'purchase', distinct_id: id, timestamp: at(exposed, 2), properties: { amount: i % 5 === 0 ? '12.5' : 10 + (i % 7) } });
  }
  for (let i = 0; i < 4; i++) {
    out.push({ event: '$feature_flag_called', distinct_id: `both${i}`, timestamp: at(T0, 70), properties: { $feature_flag: 'qx', $feature_flag_response: 'control' } });
    out.push({ event: '$feature_flag_called', distinct_id: `both${i}`, timestamp: at(T0, 71), properties: { $feature_flag: 'qx', $feature_flag_response: 'test' } });
  }
  return out;
}

describe.runIf(USER !== null)('ExperimentQuery on SQLite and PostgreSQL', () => {
  const fold = bothStores(USER!, 'rm_experiment_query');
  let s: TestServer;
  let stores: FoldedStores;
  let projectId: number;
  let experimentId: number;

  beforeAll(async () => {
    s = await startTestServer();
    projectId = s.credentials.project_id;
    await ingestEvents(s, history());
    experimentId = (
      await createExperiment(s, { name: 'Both engines', feature_flag_key: 'qx', start_date: at(T0, 30), stats_config: { method: 'frequentist', cuped: { enabled: true } } })
    ).id as number;
    stores = await fold(s.runtime.log, [ingestionProjection, experimentsProjection], { withFlags: true });
  });

  afterAll(async () => {
    await stores?.close();
    await s?.close();
  });

  const run = (metric: unknown) => (db: SqlSession) =>
    new ExperimentQueryRunner({ experiments: experimentQueries(db), metricQueries: experimentMetricQueries(db), now: () => new Date('2100-01-01T00:00:00Z') }).run(
      projectId,
      experimentId,
      metric,
    );

  it('gives the same statistics for mean (CUPED), funnel and ratio metrics on both engines', async () => {
    const mean = { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' } };
    const funnel = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'purchase' }] };
    const ratio = { kind: 'ExperimentMetric', metric_type: 'ratio', numerator: mean.source, denominator: { kind: 'EventsNode', event: '$pageview' } };
    for (const metric of [mean, funnel, ratio]) {
      const both = await stores.both(run(metric));
      expect(both.postgres).toEqual(both.sqlite);
      // The four persons seen in both variants are excluded.
      expect(both.sqlite.baseline.number_of_samples).toBe(60);
      expect(both.sqlite.variant_results[0]?.number_of_samples).toBe(60);
    }
    const m = (await stores.both(run(mean))).sqlite;
    expect(m.baseline).toHaveProperty('covariate_sum');
    // Text amounts count as numbers on both engines.
    expect(m.baseline.sum + (m.variant_results[0]?.sum ?? 0)).toBeGreaterThan(0);
  });
});
