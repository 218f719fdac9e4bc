import type { ExperimentEventReads, FunnelRow, PersonEventRow, PersonRef, TimeRange } from '../src/store/analytics';
import type { SqlSession } from '../src/store/sql';

export type { FunnelRow, PersonEventRow, PersonRef, TimeRange };

/** Later than any canonical ISO timestamp: keeps the range a plain index range when open-ended. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/*
 * Every query below reads the analytics events through the (project_id, event, timestamp) index, so
 * only the named events of the range are touched, and resolves each event's distinct id to its
 * person NOW (person_distinct_ids is keyed by (project_id, distinct_id)): events sent before a merge
 * count for the surviving person. Personless events keep the person id they were stored with.
 */
const PERSON = 'coalesce(d.person_id, e.person_id)';
const FLAG_CALLED = `'$feature_flag_called'`;
const JOIN_PERSON = 'LEFT JOIN person_distinct_ids d ON d.project_id = e.project_id AND d.distinct_id = e.distinct_id';


/** The embedded analytics store's experiment reads: portable SQL over the read models' events table. */
export function experimentResultsQueries(db: SqlSession): ExperimentEventReads {
  const { dialect } = db;
  // The alias goes before SQLite's INDEXED BY.
  const events = dialect.indexedBy('events e', 'events_by_name_time');
  const property = dialect.jsonString('e.properties');
  const key = dialect.jsonStringKey;
  const flagOf = key('$feature_flag');
  const responseOf = key('$feature_flag_response');
  const featureOf = (flagKey: string) => key(`$feature/${flagKey}`);
  return {
    /** Distinct persons who sent `$feature_flag_called` for the flag, per `$feature_flag_response`. */
    exposures(projectId: number, flagKey: string, range: TimeRange): Promise<{ variant: string | number | null; persons: number }[]> {
      return db.all(
        `SELECT variant, count(*) AS persons FROM (
           SELECT DISTINCT ${property} AS variant, ${PERSON} AS person
           FROM ${events} ${JOIN_PERSON}
           WHERE e.project_id = ? AND e.event = ${FLAG_CALLED} AND e.timestamp >= ? AND e.timestamp <= ?
             AND ${property} = ?) exposed
         GROUP BY variant ORDER BY variant`,
        responseOf,
        projectId,
        range.from,
        range.to ?? END_OF_TIME,
        flagOf,
        flagKey,
      );
    },

    /** Trend metric per `$feature/<key>` value: event count (`total`) or distinct persons (`dau`). */
    trendCounts(
      projectId: number,
      event: string,
      flagKey: string,
      range: TimeRange,
      math: 'total' | 'dau',
    ): Promise<{ variant: string | number | null; value: number }[]> {
      const value = math === 'dau' ? `count(DISTINCT ${PERSON})` : 'count(*)';
      const join = math === 'dau' ? JOIN_PERSON : '';
      return db.all(
        `SELECT ${property} AS variant, ${value} AS value
         FROM ${events} ${join}
         WHERE e.project_id = ? AND e.event = ? AND e.timestamp >= ? AND e.timestamp <= ?
         GROUP BY variant ORDER BY variant`,
        featureOf(flagKey),
        projectId,
        event,
        range.from,
        range.to ?? END_OF_TIME,
      );
    },

    /**
     * Every event of the funnel's step names in the range, with its person. JSON is parsed only
     * where needed (the flag filter, and the variant on first-step rows): at 10^5 rows each
     * extraction costs about 0.1 s. `$feature_flag_called` rows are this flag's only, so a funnel
     * that starts with the flag call also yields its exposures from this single pass.
     */
    funnelRows(projectId: number, steps: readonly string[], flagKey: string, range: TimeRange): Promise<FunnelRow[]> {
      const names = [...new Set(steps)];
      const stepIndex = names.map(() => 'WHEN ? THEN CAST(? AS INTEGER)').join(' ');
      return db.all<FunnelRow>(
        `SELECT ${PERSON} AS p, CASE e.event ${stepIndex} END AS s, e.timestamp AS t,
           CASE WHEN e.event <> ? THEN NULL
                WHEN e.event = ${FLAG_CALLED} THEN ${property}
                ELSE ${property} END AS v
         FROM ${events} ${JOIN_PERSON}
         WHERE e.project_id = ? AND e.event IN (${names.map(() => '?').join(', ')})
           AND e.timestamp >= ? AND e.timestamp <= ?
           AND (e.event <> ${FLAG_CALLED} OR ${property} = ?)`,
        ...names.flatMap((n) => [n, steps.indexOf(n)]),
        steps[0],
        responseOf,
        featureOf(flagKey),
        projectId,
        ...names,
        range.from,
        range.to ?? END_OF_TIME,
        flagOf,
        flagKey,
      );
    },

    /**
     * One person's events among `names` in the range, with the same selection and attribution as
     * the counts above (flag calls of this flag only, resolved to the person now), oldest first:
     * what the results counted for that person. Read through the distinct-id index.
     */
    personEvents(projectId: number, person: PersonRef, names: readonly string[], flagKey: string, range: TimeRange): Promise<PersonEventRow[]> {
      const unique = [...new Set(names)];
      const who =
        'personId' in person
          ? { sql: 'e.distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE project_id = ? AND person_id = ?)', params: [projectId, person.personId] }
          : { sql: 'e.distinct_id = ?', params: [person.distinctId] };
      return db.all<PersonEventRow>(
        `SELECT e.uuid, e.event, e.distinct_id, e.timestamp,
           CASE WHEN e.event = ${FLAG_CALLED} THEN ${property} ELSE ${property} END AS v
         FROM ${dialect.indexedBy('events e', 'events_by_distinct_id')}
         WHERE e.project_id = ? AND ${who.sql} AND e.event IN (${unique.map(() => '?').join(', ')})
           AND e.timestamp >= ? AND e.timestamp <= ?
           AND (e.event <> ${FLAG_CALLED} OR ${property} = ?)
         ORDER BY e.timestamp, e.uuid`,
        responseOf,
        featureOf(flagKey),
        projectId,
        ...who.params,
        ...unique,
        range.from,
        range.to ?? END_OF_TIME,
        flagOf,
        flagKey,
      );
    },

    /**
     * Whether any `event` since `since` carries a `$feature/<key>` property (any flag when key is
     * null). A text search on the stored JSON: keys are written by JSON.stringify, which never
     * escapes `$` or `/`, so the needle matches exactly the property names.
     */
    async carriesFeatureProperty(projectId: number, events: readonly string[], since: string, flagKey: string | null): Promise<boolean> {
      const needle = flagKey === null ? '"$feature/' : `"$feature/${flagKey}":`;
      for (const event of new Set(events)) {
        const hit = await db.get(
          `SELECT 1 AS hit FROM ${dialect.indexedBy('events', 'events_by_name_time')}
           WHERE project_id = ? AND event = ? AND timestamp >= ? AND ${dialect.containsText('properties', '?')} LIMIT 1`,
          projectId,
          event,
          since,
          needle,
        );
        if (hit !== undefined) return true;
      }
      return false;
    },
  };
}

export type ExperimentResultsQueries = ReturnType<typeof experimentResultsQueries>;
