import { describe, expect, it } from 'vitest';
import type { AnalyticsEventRow, AnalyticsStore } from '../../../src/store/analytics';

const PROJECT = 1;
const OTHER = 2;
const RANGE = { from: '2024-05-01T00:00:00.000Z', to: '2024-05-31T23:59:59.999Z' };

let n = 0;
/** A row with a uuid that sorts by creation (so tests can state the uuid order). */
function row(at: string, event: string, distinctId: string, properties: Record<string, unknown> = {}, extra: Partial<AnalyticsEventRow> = {}): AnalyticsEventRow {
  n++;
  return {
    uuid: `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    projectId: PROJECT,
    event,
    distinctId,
    personId: `person-${distinctId}`,
    timestamp: at,
    receivedAt: at,
    propertiesJson: JSON.stringify(properties),
    elementsChain: '',
    groups: [null, null, null, null, null],
    historicalMigration: false,
    ...extra,
  };
}

const exposure = (at: string, distinctId: string, variant: string) =>
  row(at, '$feature_flag_called', distinctId, { $feature_flag: 'f', $feature_flag_response: variant });

/**
 * The analytics port's contract: what every store answers alike. `open()` gives a fresh, empty
 * store; the suites for SQLite and PostgreSQL run it over the read models' events table.
 */
export function analyticsContract(name: string, open: () => Promise<{ analytics: AnalyticsStore; close: () => Promise<void> }>) {
  describe(`analytics contract: ${name}`, () => {
    it('the sink stores each (project, uuid) once: a batch sent again, whole or in part, changes nothing', async () => {
      const { analytics, close } = await open();
      const a = [row('2024-05-02T00:00:00.000Z', 'x', 'u1'), row('2024-05-03T00:00:00.000Z', 'x', 'u2')];
      await analytics.sink.append(a, 10);
      const resent = { ...a[1], event: 'changed', propertiesJson: '{"late":true}' };
      const b = [resent, row('2024-05-04T00:00:00.000Z', 'x', 'u3'), row('2024-05-04T00:00:00.000Z', 'x', 'u3')];
      b[2] = { ...b[1] };
      await analytics.sink.append(b, 12);
      await analytics.sink.append(a, 10);
      // The same uuid in another project is another event.
      await analytics.sink.append([{ ...a[0], projectId: OTHER }], 13);
      const listed = await analytics.events(PROJECT, { limit: 100 });
      expect(listed.map((e) => e.uuid)).toEqual([b[1].uuid, a[1].uuid, a[0].uuid]);
      expect(listed[1]).toMatchObject({ event: 'x', properties: {} });
      expect(await analytics.events(OTHER, { limit: 100 })).toHaveLength(1);
      await close();
    });

    it('lists newest first, ties by uuid descending, with filters, offset and the (timestamp, uuid) cursor', async () => {
      const { analytics, close } = await open();
      const rows = Array.from({ length: 12 }, (_, i) => row(`2024-05-0${1 + (i % 3)}T00:00:00.000Z`, i % 2 ? 'odd' : 'even', `u${i % 4}`, { i }));
      await analytics.sink.append(rows, 1);
      const expected = [...rows].sort((x, y) => (x.timestamp === y.timestamp ? (x.uuid < y.uuid ? 1 : -1) : x.timestamp < y.timestamp ? 1 : -1)).map((r) => r.uuid);
      const all = await analytics.events(PROJECT, { limit: 100 });
      expect(all.map((e) => e.uuid)).toEqual(expected);
      expect(all[0]).toMatchObject({ id: all[0].uuid, properties: { i: expect.any(Number) }, elements_chain: '', group_0: null, historical_migration: false });
      expect((await analytics.events(PROJECT, { limit: 3, offset: 4 })).map((e) => e.uuid)).toEqual(expected.slice(4, 7));
      const cut = all[5];
      expect((await analytics.events(PROJECT, { limit: 100, before: cut.timestamp, beforeUuid: cut.uuid })).map((e) => e.uuid)).toEqual(expected.slice(6));
      expect((await analytics.events(PROJECT, { limit: 100, before: '2024-05-03T00:00:00.000Z' })).every((e) => e.timestamp < '2024-05-03')).toBe(true);
      expect((await analytics.events(PROJECT, { limit: 100, after: '2024-05-02T00:00:00.000Z' })).every((e) => e.timestamp > '2024-05-02T00:00:00.000Z')).toBe(true);
      const odd = await analytics.events(PROJECT, { limit: 100, event: 'odd', distinctId: 'u1' });
      expect(odd.map((e) => e.uuid)).toEqual(expected.filter((u) => rows.find((r) => r.uuid === u)!.distinctId === 'u1'));
      await close();
    });

    it('experiment reads: exposures per variant, trend counts, funnel rows, a person\'s events, and whether the flag is sent', async () => {
      const { analytics, close } = await open();
      await analytics.sink.append(
        [
          exposure('2024-05-02T00:00:00.000Z', 'a', 'control'),
          exposure('2024-05-02T01:00:00.000Z', 'a', 'control'),
          exposure('2024-05-02T02:00:00.000Z', 'b', 'test'),
          exposure('2024-05-02T03:00:00.000Z', 'c', 'test'),
          row('2024-05-02T04:00:00.000Z', '$feature_flag_called', 'd', { $feature_flag: 'other', $feature_flag_response: 'test' }),
          row('2024-05-03T00:00:00.000Z', 'purchase', 'a', { '$feature/f': 'control', amount: 5 }),
          row('2024-05-03T00:00:00.000Z', 'purchase', 'b', { '$feature/f': 'test', amount: 7 }),
          row('2024-05-04T00:00:00.000Z', 'purchase', 'b', { '$feature/f': 'test', amount: 1 }),
          row('2024-06-04T00:00:00.000Z', 'purchase', 'c', { '$feature/f': 'test' }),
        ],
        1,
      );
      const x = analytics.experiments;
      expect(await x.exposures(PROJECT, 'f', RANGE)).toEqual([
        { variant: 'control', persons: 1 },
        { variant: 'test', persons: 2 },
      ]);
      expect(await x.trendCounts(PROJECT, 'purchase', 'f', RANGE, 'total')).toEqual([
        { variant: 'control', value: 1 },
        { variant: 'test', value: 2 },
      ]);
      expect(await x.trendCounts(PROJECT, 'purchase', 'f', { from: RANGE.from, to: null }, 'dau')).toEqual([
        { variant: 'control', value: 1 },
        { variant: 'test', value: 2 },
      ]);
      const funnel = await x.funnelRows(PROJECT, ['$feature_flag_called', 'purchase'], 'f', RANGE);
      expect(funnel.filter((r) => r.s === 0).map((r) => [r.p, r.v]).sort()).toEqual([
        ['person-a', 'control'],
        ['person-a', 'control'],
        ['person-b', 'test'],
        ['person-c', 'test'],
      ]);
      expect(funnel.filter((r) => r.s === 1)).toHaveLength(3);
      const ofB = await x.personEvents(PROJECT, { distinctId: 'b' }, ['$feature_flag_called', 'purchase'], 'f', RANGE);
      expect(ofB.map((e) => [e.event, e.timestamp, e.v])).toEqual([
        ['$feature_flag_called', '2024-05-02T02:00:00.000Z', 'test'],
        ['purchase', '2024-05-03T00:00:00.000Z', 'test'],
        ['purchase', '2024-05-04T00:00:00.000Z', 'test'],
      ]);
      expect(await x.carriesFeatureProperty(PROJECT, ['purchase'], '2024-05-01T00:00:00.000Z', 'f')).toBe(true);
      expect(await x.carriesFeatureProperty(PROJECT, ['purchase'], '2024-05-01T00:00:00.000Z', 'g')).toBe(false);
      expect(await x.carriesFeatureProperty(PROJECT, ['signup'], '2024-05-01T00:00:00.000Z', null)).toBe(false);
      await close();
    });

    it('metric reads: first exposure per person and variant, and the metric events with their property', async () => {
      const { analytics, close } = await open();
      await analytics.sink.append(
        [
          exposure('2024-05-02T00:00:00.000Z', 'a', 'control'),
          exposure('2024-05-02T05:00:00.000Z', 'a', 'control'),
          exposure('2024-05-02T02:00:00.000Z', 'b', 'test'),
          row('2024-05-03T00:00:00.000Z', 'purchase', 'a', { amount: 5 }),
          row('2024-05-03T00:00:00.000Z', 'purchase', 'b', {}),
        ],
        1,
      );
      const span = { from: RANGE.from, to: RANGE.to! };
      const exposures = await analytics.metrics.exposures(PROJECT, 'f', null, span);
      expect(exposures.map((e) => [e.p, e.v, e.t]).sort()).toEqual([
        ['person-a', 'control', '2024-05-02T00:00:00.000Z'],
        ['person-b', 'test', '2024-05-02T02:00:00.000Z'],
      ]);
      const events = await analytics.metrics.metricEvents(PROJECT, ['purchase'], 'amount', span);
      expect(events.map((e) => [e.p, e.n, e.t, e.x === null ? null : Number(e.x)]).sort()).toEqual([
        ['person-a', 'purchase', '2024-05-03T00:00:00.000Z', 5],
        ['person-b', 'purchase', '2024-05-03T00:00:00.000Z', null],
      ]);
      await close();
    });
  });
}
