/*
 * The analytics port: where the captured events live for reading at scale (the events API, the
 * experiments' event reads), apart from the persons and flags the read models keep. The embedded
 * store (projections/analytics/embedded.ts) keeps today's `events` table of the read models
 * (SQLite or PostgreSQL) behind it, with today's SQL; a ClickHouse store is the next adapter.
 * The batch-export source is this port's third face, declared with the export worker
 * (src/exports/worker/export-source.ts).
 */

/** One event as the sink stores it. */
export interface AnalyticsEventRow {
  uuid: string;
  projectId: number;
  event: string;
  distinctId: string;
  personId: string | null;
  /** Canonical ISO (`toISOString()`'s shape): every time column is compared as text. */
  timestamp: string;
  receivedAt: string;
  /** Already serialised: the properties are stringified exactly once per event. */
  propertiesJson: string;
  elementsChain: string;
  groups: readonly [string | null, string | null, string | null, string | null, string | null];
  historicalMigration: boolean;
}

/**
 * Takes events in log order. Idempotent by (project, uuid): a row already stored is left as it is,
 * so a batch sent again after a crash between its insert and its checkpoint shows each row once.
 * `position` is the log position of the batch's last event, for a store that keeps its own
 * checkpoint; the embedded store commits it with the read models' checkpoint instead.
 */
export interface AnalyticsSink {
  append(rows: readonly AnalyticsEventRow[], position: number): Promise<void>;
}

/** An event as the events API lists it. */
export interface ListedEvent {
  id: string;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  properties: Record<string, unknown>;
  timestamp: string;
  received_at: string;
  elements_chain: string;
  group_0: string | null;
  group_1: string | null;
  group_2: string | null;
  group_3: string | null;
  group_4: string | null;
  historical_migration: boolean;
}

/** An event's columns as the stores keep them: properties as text, the migration flag as 0/1. */
export type StoredEventColumns = Omit<ListedEvent, 'id' | 'properties' | 'historical_migration'> & {
  project_id: number;
  properties: string;
  historical_migration: number;
};

export interface EventListFilters {
  limit: number;
  offset?: number;
  event?: string;
  distinctId?: string;
  /**
   * Events of every distinct id the person holds now, including those recorded before a merge
   * under the merged-away person (the stored person_id is the one at ingestion).
   */
  personId?: string;
  /** ISO; events strictly after this timestamp. */
  after?: string;
  /** ISO; events strictly before this timestamp. */
  before?: string;
  /**
   * With `before`: the keyset cursor of a page's last row, so events strictly before
   * (before, beforeUuid) in the list's (timestamp desc, uuid desc) order, ties on time included.
   */
  beforeUuid?: string;
}

/** A closed time range over canonical ISO timestamps; `to` null = open-ended. */
export interface TimeRange {
  from: string;
  to: string | null;
}

/** A closed range over canonical ISO timestamps. */
export interface Span {
  from: string;
  to: string;
}

export interface FunnelRow {
  /** Person id. */
  p: string;
  /** Index of the first funnel step with this row's event name. */
  s: number;
  /** Timestamp (canonical ISO). */
  t: string;
  /**
   * The variant, on first-step rows only: `$feature_flag_response` on `$feature_flag_called` rows
   * (already this flag's only), `$feature/<key>` on others. Only a JSON string is a variant: other
   * values come back as something that is not a string (which one depends on the engine).
   */
  v: string | number | null;
}

/** One event of one person, as the results read it: the flag call's response, or the event's `$feature/<key>`. */
export interface PersonEventRow {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  /** `$feature_flag_response` (flag calls) or `$feature/<key>` (other events); non-strings as in FunnelRow. */
  v: string | number | null;
}

/** Whose events: a person's (every distinct id it holds now), or a distinct id no person holds. */
export type PersonRef = { personId: string } | { distinctId: string };

/** One entity's exposure to one variant: the first time it was seen with it. */
export interface ExposureRow {
  /** Person id. */
  p: string;
  /** The variant (a JSON string property; anything else is not a variant). */
  v: string | number | null;
  /** First exposure with this variant (canonical ISO). */
  t: string;
}

/** One exposure event: its person, variant, time and properties (JSON text). */
export interface ExposureEventRow extends ExposureRow {
  props: string;
}

/** One metric event: its person, name, time and (when the metric reads one) property value. */
export interface MetricEventRow {
  p: string;
  n: string;
  t: string;
  /** The math property as stored (text on PostgreSQL, number or text on SQLite); null when absent. */
  x: string | number | null;
  /** The event's properties (JSON text), when the read asked for them (a source filters on them). */
  props?: string | null;
}

/**
 * The legacy experiment results' reads (primary and secondary results, requires_flag_implementation).
 * Persons are resolved as they are now: events sent before a merge count for the surviving person.
 */
export interface ExperimentEventReads {
  /** Distinct persons who sent `$feature_flag_called` for the flag, per `$feature_flag_response`. */
  exposures(projectId: number, flagKey: string, range: TimeRange): Promise<{ variant: string | number | null; persons: number }[]>;
  /** Trend metric per `$feature/<key>` value: event count (`total`) or distinct persons (`dau`). */
  trendCounts(projectId: number, event: string, flagKey: string, range: TimeRange, math: 'total' | 'dau'): Promise<{ variant: string | number | null; value: number }[]>;
  /** Every event of the funnel's step names in the range, with its person. */
  funnelRows(projectId: number, steps: readonly string[], flagKey: string, range: TimeRange): Promise<FunnelRow[]>;
  /** One person's events of the given names in the range, oldest first (`$feature_flag_called` among them: this flag's only). */
  personEvents(projectId: number, person: PersonRef, names: readonly string[], flagKey: string, range: TimeRange): Promise<PersonEventRow[]>;
  /** Whether any of the events since `since` carries `$feature/<key>` (any `$feature/...` without a key). */
  carriesFeatureProperty(projectId: number, events: readonly string[], since: string, flagKey: string | null): Promise<boolean>;
}

/** The reads behind `ExperimentQuery` (the newer query endpoint). */
export interface ExperimentMetricReads {
  /** Per (person, variant) the first exposure. */
  exposures(projectId: number, flagKey: string, exposureEvent: string | null, span: Span): Promise<ExposureRow[]>;
  /**
   * The exposure events behind `exposures`, one row each with its properties (JSON text), not
   * aggregated: for exposure criteria that filter on the events' properties.
   */
  exposureEvents(projectId: number, flagKey: string, exposureEvent: string | null, span: Span): Promise<ExposureEventRow[]>;
  /** The metric's events in the span, with their person, (optionally) one property, and (`withProperties`) all of them. */
  metricEvents(projectId: number, names: readonly string[], mathProperty: string | null, span: Span, withProperties?: boolean): Promise<MetricEventRow[]>;
}

/**
 * One distinct id's person from `version` on (PostHog's `person_distinct_id2`). `version` grows with
 * every change of that distinct id's person; a writer folding the log uses the ordinal of the
 * change (log position, then the change's index within the record), so a merge outranks the
 * identify that first attached the id, and a re-sent change carries its old version.
 */
export interface PersonMappingRow {
  projectId: number;
  distinctId: string;
  personId: string;
  version: number;
}

/**
 * The person mapping the reads resolve events with: for each (project, distinct id) the row with
 * the highest version wins, whatever order the rows arrive in, so a batch sent again after a
 * crash changes nothing. One version names one person (equal versions with different persons are
 * undefined). An event's person is the mapped person of its distinct id now, else the person id it
 * was stored with: events sent before a merge count for the surviving person.
 *
 * The embedded store writes the read models' own `person_distinct_ids` (the version goes into its
 * `seq_position`, the id's ordering column there) and keeps a row only against a newer version.
 * The ingestion fold does not go through this face: it writes that table itself, in the
 * transaction that commits its checkpoint, and re-points ids on merges without touching
 * `seq_position`. So on the embedded store the face is for writers outside the fold (and this
 * port's contract suite); a store outside the read models (ClickHouse) needs it fed by its own
 * projection, since it cannot join the read models.
 */
export interface PersonMappingSink {
  map(rows: readonly PersonMappingRow[]): Promise<void>;
}

/** The analytics store: its sink and its reads. */
export interface AnalyticsStore {
  sink: AnalyticsSink;
  persons: PersonMappingSink;
  /** The events API: newest first, (timestamp desc, uuid desc), uncounted. */
  events(projectId: number, filters: EventListFilters): Promise<ListedEvent[]>;
  experiments: ExperimentEventReads;
  metrics: ExperimentMetricReads;
}

/**
 * An analytics store outside the read models (a ClickHouse server), folded from the log by a
 * projection of its own (src/app/analytics-fold.ts). It keeps no checkpoint apart from its rows:
 * every row carries the log position of the batch that stored it, and where to resume is read back
 * from them, so the position can never run ahead of the data.
 */
export interface FoldedAnalyticsStore extends AnalyticsStore {
  /** Creates what is missing (database, tables); idempotent. */
  open(): Promise<void>;
  /**
   * The log position of the last batch whose events are all stored (0: none). The fold writes a
   * batch's person mapping before its events, and each insert of events lands whole, so every
   * batch up to this one is stored.
   */
  foldedPosition(): Promise<number>;
  digest(): Promise<AnalyticsDigest>;
  /** Lets go of what the store holds open (chDB's in-process session). */
  close(): Promise<void>;
}

/**
 * Order-independent digests of an analytics store's contents as its reads see them (SetDigest):
 * each event once, and each distinct id with its person now. Storage detail (positions, versions,
 * copies a read collapses) is left out, so a store rebuilt from the log digests alike.
 */
export interface AnalyticsDigest {
  events: string;
  persons: string;
}
