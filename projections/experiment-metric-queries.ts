import type { ExperimentMetricReads, ExposureEventRow, ExposureRow, MetricEventRow, Span } from '../src/store/analytics';
import type { SqlSession, SqlValue } from '../src/store/sql';

export type { ExposureEventRow, ExposureRow, MetricEventRow, Span };

const PERSON = 'coalesce(d.person_id, e.person_id)';
const JOIN_PERSON = 'LEFT JOIN person_distinct_ids d ON d.project_id = e.project_id AND d.distinct_id = e.distinct_id';

/**
 * The reads behind `ExperimentQuery`: portable SQL over the analytics events (SQLite and
 * PostgreSQL), each through the (project_id, event, timestamp) index so only the named events of
 * the span are touched, persons resolved as they are now (like the legacy results' queries).
 */
export function experimentMetricQueries(db: SqlSession): ExperimentMetricReads {
  const { dialect } = db;
  const events = dialect.indexedBy('events e', 'events_by_name_time');
  const property = dialect.jsonString('e.properties');
  const key = dialect.jsonStringKey;
  /**
   * Each exposure event with its person and variant (`extra`: more columns). The default exposure
   * is `$feature_flag_called` for this flag with the variant in `$feature_flag_response`; a custom
   * exposure event carries it in `$feature/<key>`.
   */
  const exposureEventsSql = (projectId: number, flagKey: string, exposureEvent: string | null, span: Span, extra: string): [string, SqlValue[]] =>
    exposureEvent === null
      ? [
          `SELECT ${PERSON} AS p, ${property} AS v, e.timestamp AS t${extra}
           FROM ${events} ${JOIN_PERSON}
           WHERE e.project_id = ? AND e.event = '$feature_flag_called' AND e.timestamp >= ? AND e.timestamp <= ? AND ${property} = ?`,
          [key('$feature_flag_response'), projectId, span.from, span.to, key('$feature_flag'), flagKey],
        ]
      : [
          `SELECT ${PERSON} AS p, ${property} AS v, e.timestamp AS t${extra}
           FROM ${events} ${JOIN_PERSON}
           WHERE e.project_id = ? AND e.event = ? AND e.timestamp >= ? AND e.timestamp <= ?`,
          [key(`$feature/${flagKey}`), projectId, exposureEvent, span.from, span.to],
        ];
  return {
    /**
     * Per (person, variant) the first exposure. `$feature_flag_called` exposures come from
     * flag_exposures (the same events' flag and string variant, kept apart by the fold), each
     * distinct id's first per variant before its person is looked up.
     */
    exposures(projectId: number, flagKey: string, exposureEvent: string | null, span: Span): Promise<ExposureRow[]> {
      // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent answers, the events table's read below gives the same rows (flag_exposures is the fast path)
      if (exposureEvent === null) {
        return db.all<ExposureRow>(
          `SELECT coalesce(d.person_id, x.person_id) AS p, x.variant AS v, min(x.t) AS t
           FROM (SELECT distinct_id, variant, min(person_id) AS person_id, min(timestamp) AS t
                 FROM flag_exposures WHERE project_id = ? AND flag_key = ? AND timestamp >= ? AND timestamp <= ?
                 GROUP BY distinct_id, variant) x
           LEFT JOIN person_distinct_ids d ON d.project_id = ? AND d.distinct_id = x.distinct_id
           GROUP BY 1, 2`,
          projectId,
          flagKey,
          span.from,
          span.to,
          projectId,
        );
      }
      const [sightings, params] = exposureEventsSql(projectId, flagKey, exposureEvent, span, '');
      return db.all<ExposureRow>(`SELECT p, v, min(t) AS t FROM (${sightings}) x GROUP BY p, v`, ...params);
    },

    /** The same sightings one by one, with each event's properties. */
    exposureEvents(projectId: number, flagKey: string, exposureEvent: string | null, span: Span): Promise<ExposureEventRow[]> {
      const [sightings, params] = exposureEventsSql(projectId, flagKey, exposureEvent, span, ', e.properties AS props');
      return db.all<ExposureEventRow>(sightings, ...params);
    },

    /** Every event of the named ones in the span with its person, one property and (when asked) all of them. */
    metricEvents(projectId: number, names: readonly string[], mathProperty: string | null, span: Span, withProperties = false): Promise<MetricEventRow[]> {
      const value = mathProperty === null ? 'NULL' : dialect.jsonText('e.properties', mathProperty);
      return db.all<MetricEventRow>(
        `SELECT ${PERSON} AS p, e.event AS n, e.timestamp AS t, ${value} AS x, ${withProperties ? 'e.properties' : 'NULL'} AS props
         FROM ${events} ${JOIN_PERSON}
         WHERE e.project_id = ? AND ${dialect.inJsonArray('e.event', 'text')} AND e.timestamp >= ? AND e.timestamp <= ?`,
        projectId,
        JSON.stringify([...new Set(names)]),
        span.from,
        span.to,
      );
    },
  };
}

export type ExperimentMetricQueries = ReturnType<typeof experimentMetricQueries>;
