import type { ExperimentEventReads, FunnelRow, PersonEventRow, PersonRef, TimeRange } from '../../store/analytics';
import { dedupedEvents, eventsWithPersons } from './deduped-events';
import type { ClickHouseConnection } from './connection';
import { stringProperty } from './json-fields';
import { distinctIdsOf } from './person-mapping';
import { int, str, strList } from './sql-literal';
import { fromMs, toMs } from './time';

const FLAG_CALLED = `'$feature_flag_called'`;
const FLAG = (flagKey: string) => `${stringProperty('properties', '$feature_flag')} = ${str(flagKey)}`;
const RESPONSE = stringProperty('properties', '$feature_flag_response');
const FEATURE = (flagKey: string) => stringProperty('properties', `$feature/${flagKey}`);

/** `timestamp` within the range (closed; `to` null = open-ended). */
function within(range: TimeRange): string {
  const from = `timestamp >= ${int(toMs(range.from))}`;
  return range.to === null ? from : `${from} AND timestamp <= ${int(toMs(range.to))}`;
}

/**
 * The legacy experiment results' reads, with the embedded store's selection and attribution:
 * flag calls of this flag only, each event's person as mapped now (deduped-events.ts).
 */
export function clickhouseExperimentReads(client: ClickHouseConnection): ExperimentEventReads {
  return {
    async exposures(projectId, flagKey, range) {
      const rows = await client.rows<{ variant: string | null; persons: string }>(
        `SELECT variant, count() AS persons FROM (
           SELECT DISTINCT variant, person
           FROM ${eventsWithPersons(projectId, `event = ${FLAG_CALLED} AND ${within(range)} AND ${FLAG(flagKey)}`, `${RESPONSE} AS variant`)})
         GROUP BY variant ORDER BY variant`,
      );
      return rows.map((r) => ({ variant: r.variant, persons: Number(r.persons) }));
    },

    async trendCounts(projectId, event, flagKey, range, math) {
      const where = `event = ${str(event)} AND ${within(range)}`;
      const rows = await client.rows<{ variant: string | null; value: string }>(
        math === 'dau'
          ? `SELECT variant, uniqExact(person) AS value FROM ${eventsWithPersons(projectId, where, `${FEATURE(flagKey)} AS variant`)}
             GROUP BY variant ORDER BY variant`
          : `SELECT ${FEATURE(flagKey)} AS variant, count() AS value FROM ${dedupedEvents(projectId, where)}
             GROUP BY variant ORDER BY variant`,
      );
      return rows.map((r) => ({ variant: r.variant, value: Number(r.value) }));
    },

    async funnelRows(projectId, steps, flagKey, range) {
      const names = [...new Set(steps)];
      if (names.length === 0) return [];
      const step = `transform(event, [${names.map(str).join(', ')}], [${names.map((n) => int(steps.indexOf(n))).join(', ')}], -1)`;
      const variant = `multiIf(event != ${str(steps[0])}, NULL, event = ${FLAG_CALLED}, ${RESPONSE}, ${FEATURE(flagKey)})`;
      const where = `event IN ${strList(names)} AND ${within(range)} AND (event != ${FLAG_CALLED} OR ${FLAG(flagKey)})`;
      const rows = await client.rows<{ p: string; s: number; t: string; v: string | null }>(
        `SELECT person AS p, s, t, v FROM ${eventsWithPersons(projectId, where, `${step} AS s, timestamp AS t, ${variant} AS v`)}`,
      );
      return rows.map((r): FunnelRow => ({ p: r.p, s: Number(r.s), t: fromMs(r.t), v: r.v }));
    },

    async personEvents(projectId: number, person: PersonRef, names: readonly string[], flagKey: string, range: TimeRange) {
      const unique = [...new Set(names)];
      if (unique.length === 0) return [];
      const who = 'personId' in person ? `distinct_id IN ${distinctIdsOf(projectId, person.personId)}` : `distinct_id = ${str(person.distinctId)}`;
      const where = `${who} AND event IN ${strList(unique)} AND ${within(range)} AND (event != ${FLAG_CALLED} OR ${FLAG(flagKey)})`;
      const rows = await client.rows<Omit<PersonEventRow, 'timestamp'> & { timestamp: string }>(
        `SELECT uuid, event, distinct_id, timestamp, if(event = ${FLAG_CALLED}, ${RESPONSE}, ${FEATURE(flagKey)}) AS v
         FROM ${dedupedEvents(projectId, where)} ORDER BY timestamp, uuid`,
      );
      return rows.map((r) => ({ ...r, timestamp: fromMs(r.timestamp) }));
    },

    /** A substring search on the stored JSON, like the embedded store's (see its comment for why it is exact). */
    async carriesFeatureProperty(projectId, events, since, flagKey) {
      const unique = [...new Set(events)];
      if (unique.length === 0) return false;
      const needle = flagKey === null ? '"$feature/' : `"$feature/${flagKey}":`;
      const where = `event IN ${strList(unique)} AND timestamp >= ${int(toMs(since))} AND position(properties, ${str(needle)}) > 0`;
      const rows = await client.rows(`SELECT 1 AS hit FROM ${dedupedEvents(projectId, where)} LIMIT 1`);
      return rows.length > 0;
    },
  };
}
