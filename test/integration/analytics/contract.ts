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

    it('exposures: each person\'s first per variant of this flag in the span; an exposure sent again with another time keeps its first', async () => {
      const { analytics, close } = await open();
      const first = exposure('2024-05-02T00:00:00.000Z', 'a', 'control');
      await analytics.sink.append(
        [
          first,
          exposure('2024-05-03T00:00:00.000Z', 'a', 'control'),
          exposure('2024-05-04T00:00:00.000Z', 'a', 'test'),
          exposure('2024-04-30T00:00:00.000Z', 'b', 'control'),
          exposure('2024-05-05T00:00:00.000Z', 'b', 'test'),
          row('2024-05-01T12:00:00.000Z', '$feature_flag_called', 'c', { $feature_flag: 'other', $feature_flag_response: 'test' }),
        ],
        20,
      );
      await analytics.sink.append([{ ...first, timestamp: '2024-05-01T06:00:00.000Z' }], 21);
      const span = { from: '2024-05-01T00:00:00.000Z', to: '2024-05-31T23:59:59.999Z' };
      expect((await analytics.metrics.exposures(PROJECT, 'f', null, span)).map((e) => [e.p, e.v, e.t]).sort()).toEqual([
        ['person-a', 'control', '2024-05-02T00:00:00.000Z'],
        ['person-a', 'test', '2024-05-04T00:00:00.000Z'],
        ['person-b', 'test', '2024-05-05T00:00:00.000Z'],
      ]);
      expect(await analytics.metrics.exposures(OTHER, 'f', null, span)).toEqual([]);
      await close();
    });

    it('a batch sent again (as after a crash before its checkpoint) counts once in every read', async () => {
      const { analytics, close } = await open();
      const batch = [
        exposure('2024-05-02T00:00:00.000Z', 'a', 'control'),
        exposure('2024-05-02T00:00:00.000Z', 'b', 'test'),
        row('2024-05-03T00:00:00.000Z', 'purchase', 'a', { '$feature/f': 'control', amount: 2 }),
        row('2024-05-03T00:00:00.000Z', 'purchase', 'b', { '$feature/f': 'test', amount: 3 }),
      ];
      await analytics.sink.append(batch, 7);
      await analytics.sink.append(batch, 7);
      // A later copy under the same uuid with another name and time shows nowhere.
      await analytics.sink.append([{ ...batch[2], event: '$feature_flag_called', timestamp: '2024-05-05T00:00:00.000Z', propertiesJson: '{"$feature_flag":"f","$feature_flag_response":"test"}' }], 9);
      const x = analytics.experiments;
      expect(await x.exposures(PROJECT, 'f', RANGE)).toEqual([
        { variant: 'control', persons: 1 },
        { variant: 'test', persons: 1 },
      ]);
      expect(await x.trendCounts(PROJECT, 'purchase', 'f', RANGE, 'total')).toEqual([
        { variant: 'control', value: 1 },
        { variant: 'test', value: 1 },
      ]);
      expect(await x.funnelRows(PROJECT, ['$feature_flag_called', 'purchase'], 'f', RANGE)).toHaveLength(4);
      expect(await x.personEvents(PROJECT, { distinctId: 'a' }, ['$feature_flag_called', 'purchase'], 'f', RANGE)).toHaveLength(2);
      const span = { from: RANGE.from, to: RANGE.to! };
      expect(await analytics.metrics.exposures(PROJECT, 'f', null, span)).toHaveLength(2);
      expect(await analytics.metrics.metricEvents(PROJECT, ['purchase', '$feature_flag_called'], 'amount', span)).toHaveLength(4);
      expect(await analytics.events(PROJECT, { limit: 100, event: '$feature_flag_called' })).toHaveLength(2);
      expect(await analytics.events(PROJECT, { limit: 100, after: '2024-05-04T00:00:00.000Z' })).toEqual([]);
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

    it('persons: the newest version of each distinct id\'s mapping wins, and events sent before a merge count for the survivor in every read', async () => {
      const { analytics, close } = await open();
      // `anon` browses, then is merged into `user`'s person; `solo` has no mapping (its stored person counts).
      const rows = [
        exposure('2024-05-02T00:00:00.000Z', 'anon', 'control'),
        exposure('2024-05-02T01:00:00.000Z', 'user', 'control'),
        exposure('2024-05-02T02:00:00.000Z', 'solo', 'test'),
        row('2024-05-03T00:00:00.000Z', 'purchase', 'anon', { '$feature/f': 'control', amount: 3 }),
        row('2024-05-04T00:00:00.000Z', 'purchase', 'user', { '$feature/f': 'control', amount: 4 }),
        row('2024-05-04T00:00:00.000Z', 'purchase', 'solo', { '$feature/f': 'test', amount: 1 }),
      ];
      await analytics.sink.append(rows, 1);
      await analytics.persons.map([
        // In one batch the merge comes before the older mapping it replaces; a stale one comes later still.
        { projectId: PROJECT, distinctId: 'anon', personId: 'person-user', version: 9 },
        { projectId: PROJECT, distinctId: 'anon', personId: 'person-anon', version: 2 },
        { projectId: PROJECT, distinctId: 'user', personId: 'person-user', version: 4 },
      ]);
      // An empty batch changes nothing.
      await analytics.persons.map([]);
      await analytics.persons.map([{ projectId: PROJECT, distinctId: 'anon', personId: 'person-anon', version: 5 }]);
      // The same distinct id in another project is another person.
      await analytics.persons.map([{ projectId: OTHER, distinctId: 'solo', personId: 'person-elsewhere', version: 99 }]);

      const x = analytics.experiments;
      expect(await x.exposures(PROJECT, 'f', RANGE)).toEqual([
        { variant: 'control', persons: 1 },
        { variant: 'test', persons: 1 },
      ]);
      expect(await x.trendCounts(PROJECT, 'purchase', 'f', RANGE, 'dau')).toEqual([
        { variant: 'control', value: 1 },
        { variant: 'test', value: 1 },
      ]);
      expect(await x.trendCounts(PROJECT, 'purchase', 'f', RANGE, 'total')).toEqual([
        { variant: 'control', value: 2 },
        { variant: 'test', value: 1 },
      ]);
      const funnel = await x.funnelRows(PROJECT, ['$feature_flag_called', 'purchase'], 'f', RANGE);
      expect(funnel.map((r) => [r.p, r.s, r.t, r.v]).sort()).toEqual([
        ['person-solo', 0, '2024-05-02T02:00:00.000Z', 'test'],
        ['person-solo', 1, '2024-05-04T00:00:00.000Z', null],
        ['person-user', 0, '2024-05-02T00:00:00.000Z', 'control'],
        ['person-user', 0, '2024-05-02T01:00:00.000Z', 'control'],
        ['person-user', 1, '2024-05-03T00:00:00.000Z', null],
        ['person-user', 1, '2024-05-04T00:00:00.000Z', null],
      ]);
      const names = ['$feature_flag_called', 'purchase'];
      const ofUser = await x.personEvents(PROJECT, { personId: 'person-user' }, names, 'f', RANGE);
      expect(ofUser.map((e) => [e.uuid, e.event, e.distinct_id, e.timestamp, e.v])).toEqual([
        [rows[0].uuid, '$feature_flag_called', 'anon', '2024-05-02T00:00:00.000Z', 'control'],
        [rows[1].uuid, '$feature_flag_called', 'user', '2024-05-02T01:00:00.000Z', 'control'],
        [rows[3].uuid, 'purchase', 'anon', '2024-05-03T00:00:00.000Z', 'control'],
        [rows[4].uuid, 'purchase', 'user', '2024-05-04T00:00:00.000Z', 'control'],
      ]);
      expect(await x.personEvents(PROJECT, { personId: 'person-anon' }, names, 'f', RANGE)).toEqual([]);
      expect((await x.personEvents(PROJECT, { distinctId: 'solo' }, names, 'f', RANGE)).map((e) => e.uuid)).toEqual([rows[2].uuid, rows[5].uuid]);

      const span = { from: RANGE.from, to: RANGE.to! };
      expect((await analytics.metrics.exposures(PROJECT, 'f', null, span)).map((e) => [e.p, e.v, e.t]).sort()).toEqual([
        ['person-solo', 'test', '2024-05-02T02:00:00.000Z'],
        ['person-user', 'control', '2024-05-02T00:00:00.000Z'],
      ]);
      expect((await analytics.metrics.exposures(PROJECT, 'f', 'purchase', span)).map((e) => [e.p, e.v, e.t]).sort()).toEqual([
        ['person-solo', 'test', '2024-05-04T00:00:00.000Z'],
        ['person-user', 'control', '2024-05-03T00:00:00.000Z'],
      ]);
      const metric = await analytics.metrics.metricEvents(PROJECT, ['purchase'], 'amount', span);
      expect(metric.map((e) => [e.p, e.t, Number(e.x)]).sort()).toEqual([
        ['person-solo', '2024-05-04T00:00:00.000Z', 1],
        ['person-user', '2024-05-03T00:00:00.000Z', 3],
        ['person-user', '2024-05-04T00:00:00.000Z', 4],
      ]);

      // The events API lists the person's events under every id it holds now; each row keeps the
      // person id it was stored with.
      const listed = await analytics.events(PROJECT, { limit: 100, personId: 'person-user' });
      expect(listed.map((e) => [e.uuid, e.person_id])).toEqual([
        [rows[4].uuid, 'person-user'],
        [rows[3].uuid, 'person-anon'],
        [rows[1].uuid, 'person-user'],
        [rows[0].uuid, 'person-anon'],
      ]);
      expect(await analytics.events(PROJECT, { limit: 100, personId: 'person-anon' })).toEqual([]);
      expect((await analytics.events(PROJECT, { limit: 1, offset: 1, personId: 'person-user', event: 'purchase' })).map((e) => e.uuid)).toEqual([rows[3].uuid]);
      await close();
    });

    it('variants that are not JSON strings are not string variants; stored fields and times come back as written', async () => {
      const { analytics, close } = await open();
      const odd = [
        row('2024-05-02T00:00:00.001Z', '$feature_flag_called', 'n', { $feature_flag: 'f', $feature_flag_response: 1 }),
        row('2024-05-02T00:00:00.002Z', '$feature_flag_called', 't', { $feature_flag: 'f', $feature_flag_response: true }),
        row('2024-05-02T00:00:00.003Z', '$feature_flag_called', 's', { $feature_flag: 'f', $feature_flag_response: 'te{s}t "q" \\ é' }),
        row('2024-05-02T00:00:00.004Z', 'purchase', 's', { '$feature/f': 'te{s}t "q" \\ é', amount: '2.5', note: "it's" }, {
          groups: ['g0', null, 'g2', null, null],
          elementsChain: 'a:nth-child="1"',
          historicalMigration: true,
          receivedAt: '2024-05-02T00:00:01.999Z',
        }),
      ];
      await analytics.sink.append(odd, 1);
      const exposures = await analytics.experiments.exposures(PROJECT, 'f', RANGE);
      expect(exposures.filter((e) => typeof e.variant === 'string')).toEqual([{ variant: 'te{s}t "q" \\ é', persons: 1 }]);
      expect(exposures.filter((e) => typeof e.variant !== 'string').reduce((sum, e) => sum + e.persons, 0)).toBe(2);
      const [listed] = await analytics.events(PROJECT, { limit: 1 });
      expect(listed).toEqual({
        id: odd[3].uuid,
        uuid: odd[3].uuid,
        event: 'purchase',
        distinct_id: 's',
        person_id: 'person-s',
        properties: { '$feature/f': 'te{s}t "q" \\ é', amount: '2.5', note: "it's" },
        timestamp: '2024-05-02T00:00:00.004Z',
        received_at: '2024-05-02T00:00:01.999Z',
        elements_chain: 'a:nth-child="1"',
        group_0: 'g0',
        group_1: null,
        group_2: 'g2',
        group_3: null,
        group_4: null,
        historical_migration: true,
      });
      const [metric] = await analytics.metrics.metricEvents(PROJECT, ['purchase'], 'amount', { from: RANGE.from, to: RANGE.to });
      expect(metric).toEqual({ p: 'person-s', n: 'purchase', t: '2024-05-02T00:00:00.004Z', x: '2.5', props: null });
      const [ofS] = await analytics.experiments.personEvents(PROJECT, { distinctId: 's' }, ['purchase'], 'f', RANGE);
      expect(ofS.v).toBe('te{s}t "q" \\ é');
      expect(await analytics.experiments.carriesFeatureProperty(PROJECT, ['purchase'], '2024-05-02T00:00:00.004Z', 'f')).toBe(true);
      expect(await analytics.experiments.carriesFeatureProperty(PROJECT, ['purchase'], '2024-05-02T00:00:00.005Z', 'f')).toBe(false);
      await close();
    });

    it('metric reads: first exposure per person and variant, and the metric events with their property (and, when asked, all of them)', async () => {
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
      // The exposure events one by one, with their properties (what exposure criteria filter on).
      const sightings = await analytics.metrics.exposureEvents(PROJECT, 'f', null, span);
      expect(sightings.map((e) => [e.p, e.v, e.t, (JSON.parse(e.props) as Record<string, unknown>).$feature_flag_response]).sort()).toEqual([
        ['person-a', 'control', '2024-05-02T00:00:00.000Z', 'control'],
        ['person-a', 'control', '2024-05-02T05:00:00.000Z', 'control'],
        ['person-b', 'test', '2024-05-02T02:00:00.000Z', 'test'],
      ]);
      // Only when asked: every property of each event, as stored (what source filters read).
      expect(events.every((e) => e.props === null || e.props === undefined)).toBe(true);
      const withProperties = await analytics.metrics.metricEvents(PROJECT, ['purchase'], null, span, true);
      expect(withProperties.map((e) => [e.p, JSON.parse(e.props!) as unknown]).sort()).toEqual([
        ['person-a', { amount: 5 }],
        ['person-b', {}],
      ]);
      await close();
    });
  });
}
