import type { ExperimentMetricReads, Span } from '../../store/analytics';
import { eventsWithPersons } from './deduped-events';
import type { ClickHouseConnection } from './connection';
import { stringProperty, textProperty } from './json-fields';
import { int, str, strList } from './sql-literal';
import { fromMs, toMs } from './time';

const within = (span: Span) => `timestamp >= ${int(toMs(span.from))} AND timestamp <= ${int(toMs(span.to))}`;

/**
 * Each exposure event with its person now and variant (`extra`: more columns): `$feature_flag_called`
 * of this flag with the variant in `$feature_flag_response`, or a custom exposure event carrying it
 * in `$feature/<key>`.
 */
function exposureEventsSql(projectId: number, flagKey: string, exposureEvent: string | null, span: Span, extra: string): string {
  const where =
    exposureEvent === null
      ? `event = '$feature_flag_called' AND ${within(span)} AND ${stringProperty('properties', '$feature_flag')} = ${str(flagKey)}`
      : `event = ${str(exposureEvent)} AND ${within(span)}`;
  const variant = stringProperty('properties', exposureEvent === null ? '$feature_flag_response' : `$feature/${flagKey}`);
  return eventsWithPersons(projectId, where, `timestamp, ${variant} AS v${extra}`);
}

/** The reads behind `ExperimentQuery`, persons resolved as they are now (as the embedded store). */
export function clickhouseMetricReads(client: ClickHouseConnection): ExperimentMetricReads {
  return {
    /** Per (person, variant) the first exposure. */
    async exposures(projectId, flagKey, exposureEvent, span) {
      const rows = await client.rows<{ p: string; v: string | null; t: string }>(
        `SELECT person AS p, v, min(timestamp) AS t FROM ${exposureEventsSql(projectId, flagKey, exposureEvent, span, '')} GROUP BY p, v`,
      );
      return rows.map((r) => ({ ...r, t: fromMs(r.t) }));
    },

    /** The same sightings one by one, with each event's properties. */
    async exposureEvents(projectId, flagKey, exposureEvent, span) {
      const rows = await client.rows<{ p: string; v: string | null; t: string; props: string }>(
        `SELECT person AS p, v, timestamp AS t, properties AS props FROM ${exposureEventsSql(projectId, flagKey, exposureEvent, span, ', properties')}`,
      );
      return rows.map((r) => ({ ...r, t: fromMs(r.t) }));
    },

    async metricEvents(projectId, names, mathProperty, span, withProperties = false) {
      const unique = [...new Set(names)];
      if (unique.length === 0) return [];
      const value = mathProperty === null ? 'NULL' : textProperty('properties', mathProperty);
      const rows = await client.rows<{ p: string; n: string; t: string; x: string | null; props: string | null }>(
        `SELECT person AS p, event AS n, timestamp AS t, x, props
         FROM ${eventsWithPersons(projectId, `event IN ${strList(unique)} AND ${within(span)}`, `event, timestamp, ${value} AS x, ${withProperties ? 'properties' : 'NULL'} AS props`)}`,
      );
      return rows.map((r) => ({ ...r, t: fromMs(r.t) }));
    },
  };
}
