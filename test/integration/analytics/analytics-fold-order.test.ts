import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsFold, type FoldTarget } from '../../../src/app/analytics-fold';
import type { AnalyticsEventRow, PersonMappingRow } from '../../../src/store/analytics';
import { ingestEvents } from '../experiments/helpers';
import { startTestServer, type TestServer } from '../../support/server';

/**
 * The analytics projection's order of work, over a real log and read models, into a store that
 * notes what it is asked (an in-memory stand-in of the port, each insert taking a while, as a
 * server's does): a batch's mapping may go in while the batch before stores its events, but a
 * batch's events never before its own mapping nor before the previous batch's events.
 */
describe('the analytics projection feeding a store outside the read models', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    // Three /batch/ requests: three log records, each with a person event.
    for (let r = 0; r < 3; r++) await ingestEvents(s, [{ event: 'e', distinct_id: `user-${r}`, timestamp: '2024-05-01T00:00:00.000Z', properties: { r } }]);
  });
  afterAll(() => s?.close());

  it('maps the next batch meanwhile, stores events in order, each after its mapping', async () => {
    const steps: string[] = [];
    const stored: AnalyticsEventRow[] = [];
    const mapped: PersonMappingRow[] = [];
    const slowly = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const store: FoldTarget = {
      open: async () => {},
      foldedPosition: async () => 0,
      persons: {
        map: async (rows: readonly PersonMappingRow[]) => {
          steps.push(`map ${rows[0].version} start`);
          await slowly(20);
          mapped.push(...rows);
          steps.push(`map ${rows[0].version} done`);
        },
      },
      sink: {
        append: async (rows: readonly AnalyticsEventRow[], position: number) => {
          steps.push(`events ${position} start`);
          await slowly(80);
          stored.push(...rows);
          steps.push(`events ${position} done`);
        },
      },
    };
    const fold = new AnalyticsFold({
      log: s.runtime.log,
      store,
      readModels: s.runtime.readModels.readmodels.session,
      ingested: (position) => s.runtime.runner.waitFor(position, ['ingestion']),
      batchRecords: 1,
    });
    const head = await s.runtime.log.head();
    await fold.start();
    await fold.waitFor(head);
    await fold.stop();
    const batches = [...new Set(steps.filter((x) => x.startsWith('events')).map((x) => Number(x.split(' ')[1])))];
    expect(batches).toHaveLength(3);
    expect(stored.map((e) => e.distinctId)).toEqual(['user-0', 'user-1', 'user-2']);
    expect(new Set(mapped.map((m) => m.distinctId))).toEqual(new Set(['user-0', 'user-1', 'user-2']));
    const at = (step: string) => steps.indexOf(step);
    for (const [i, p] of batches.entries()) {
      // Its own mapping first, then its events.
      expect(at(`map ${p} done`)).toBeLessThan(at(`events ${p} start`));
      if (i === 0) continue;
      const before = batches[i - 1];
      // Events in order; this batch's mapping while the previous batch's events were being stored.
      expect(at(`events ${before} done`)).toBeLessThan(at(`events ${p} start`));
      expect(at(`map ${p} start`)).toBeLessThan(at(`events ${before} done`));
    }
  });
});
