import {
  actionStream,
  batchExportRunStream,
  batchExportStream,
  cohortStream,
  earlyAccessFeatureStream,
  experimentSavedMetricStream,
  experimentEvents,
  experimentStream,
  type ExperimentEvent,
  featureFlagStream,
  surveyStream,
  type RecordedEvent,
} from '../../streams';
import { featureFlagsProjection } from '../../projections/feature-flags';
import { featureFlagQueries, type FeatureFlagQueries, type FeatureFlagRow } from '../../projections/feature-flags-queries';
import { experimentsProjection } from '../../projections/experiments';
import { experimentQueries, type ExperimentRow } from '../../projections/experiments-queries';
import { experimentSavedMetricsProjection } from '../../projections/experiment-saved-metrics';
import { actionsProjection } from '../../projections/actions';
import { actionQueries, type ActionRow } from '../../projections/actions-queries';
import { savedMetricQueries, type SavedMetricLinkRow, type SavedMetricRow } from '../../projections/experiment-saved-metrics-queries';
import { cohortsProjection } from '../../projections/cohorts';
import { cohortQueries, type CohortRow } from '../../projections/cohorts-queries';
import { surveysProjection } from '../../projections/surveys';
import { surveyQueries, type SurveyRow } from '../../projections/surveys-queries';
import { earlyAccessProjection } from '../../projections/early-access';
import { earlyAccessQueries, type EarlyAccessRow } from '../../projections/early-access-queries';
import { batchExportQueries, batchExportRunQueries, batchExportsProjection, batchExportRunsProjection, type BatchExportRow, type RunRow } from '../../projections/exports';
import { PERSON_DISTINCT_IDS } from '../../projections/ingestion/schema';
import type { EventLog } from '../store/event-log';
import { isEventOf } from '../runtime/decider';
import type { ScratchStores } from '../store/read-models';
import type { SqlSession } from '../store/sql';
import type { AsOf } from './as-of';
import { streamAsOf } from './bounded-stream';
import { foldInScratch } from './scratch-fold';
import { PersonTimeTravel } from './persons';

// Ids of these resources are UUIDs: anything else names nothing, as in the live services.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TimeTravelDeps {
  log: EventLog;
  scratch: ScratchStores;
  /** The live read models: only for what the log does not say by stream (a flag's id, assigned in log order). */
  live: SqlSession;
  /** Whether the live read models hold a table (one an upgrade is still building is not there yet). */
  hasTable: (name: string) => Promise<boolean>;
}

/** A text field of an event's data (the keys linking one aggregate to another), or null. */
const textField = (e: RecordedEvent | undefined, name: string): string | null => {
  const value = e && typeof e.data === 'object' && e.data !== null ? (e.data as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : null;
};
const numberField = (e: RecordedEvent | undefined, name: string): number | null => {
  const value = e && typeof e.data === 'object' && e.data !== null ? (e.data as Record<string, unknown>)[name] : undefined;
  return typeof value === 'number' ? value : null;
};

/**
 * Management resources as they stood at a point of the log. Each is its aggregate's own stream(s),
 * read up to the bound (never the whole log) and folded by the same projection that builds the live
 * read model, into a scratch store, then read by the same query: the same row, as it was. Undefined
 * when the resource did not exist yet (or was not visible, as its live query would say).
 */
export class TimeTravel {
  private readonly flags: FeatureFlagQueries;
  /** Persons and groups, folded from ingestion records (see persons.ts). */
  readonly people: PersonTimeTravel;

  constructor(private readonly deps: TimeTravelDeps) {
    this.flags = featureFlagQueries(deps.live);
    this.people = new PersonTimeTravel(deps);
  }

  /** The stream as it stood (for callers that fold it themselves). */
  stream(streamId: string, asOf: AsOf): Promise<RecordedEvent[]> {
    return streamAsOf(this.deps.log, streamId, asOf);
  }

  async flag(projectId: number, id: number, asOf: AsOf): Promise<FeatureFlagRow | undefined> {
    // Flags are never removed from the read model (a delete is soft), and their id never changes.
    const live = await this.flags.byId(projectId, id);
    return live && this.flagByKey(projectId, live.key, asOf);
  }

  async flagByKey(projectId: number, key: string, asOf: AsOf): Promise<FeatureFlagRow | undefined> {
    const live = await this.flags.byKey(projectId, key);
    if (!live) return undefined;
    const events = await this.stream(featureFlagStream(projectId, live.key), asOf);
    if (events.length === 0) return undefined;
    return foldInScratch(this.deps.scratch, {
      projections: [featureFlagsProjection],
      events,
      fixup: (db) => this.liveFlagIds(db, projectId, [live.key]),
      read: (db) => featureFlagQueries(db).byKey(projectId, live.key),
    });
  }

  async experiment(projectId: number, id: number, asOf: AsOf): Promise<ExperimentRow | undefined> {
    const events = await this.stream(experimentStream(id), asOf);
    if (events.length === 0) return undefined;
    const key = textField(events[0], 'featureFlagKey');
    const flagEvents = key ? await this.stream(featureFlagStream(projectId, key), asOf) : [];
    return foldInScratch(this.deps.scratch, {
      projections: [featureFlagsProjection, experimentsProjection],
      events: [...events, ...flagEvents],
      fixup: (db) => this.liveFlagIds(db, projectId, key ? [key] : []),
      read: (db) => experimentQueries(db).byId(projectId, id),
    });
  }

  /** An action as it stood (soft-deleted then: read back with `deleted: true`, as now). */
  async action(projectId: number, id: number, asOf: AsOf): Promise<ActionRow | undefined> {
    const events = await this.stream(actionStream(id), asOf);
    if (events.length === 0) return undefined;
    return foldInScratch(this.deps.scratch, { projections: [actionsProjection], events, read: (db) => actionQueries(db).byId(projectId, id) });
  }

  async savedMetric(projectId: number, id: number, asOf: AsOf): Promise<SavedMetricRow | undefined> {
    const events = await this.stream(experimentSavedMetricStream(id), asOf);
    if (events.length === 0) return undefined;
    return foldInScratch(this.deps.scratch, { projections: [experimentSavedMetricsProjection], events, read: (db) => savedMetricQueries(db).byId(projectId, id) });
  }

  /**
   * An experiment's links to saved metrics as they stood, with each metric's query and name then:
   * the experiment's stream and those of every metric it ever linked, folded together. Link ids
   * are numbered in log order across all experiments, so the live ones are put back.
   */
  async experimentSavedMetricLinks(projectId: number, experimentId: number, asOf: AsOf): Promise<SavedMetricLinkRow[]> {
    const events = await this.stream(experimentStream(experimentId), asOf);
    const linked = new Set<number>();
    for (const e of events) {
      if (!isEventOf<ExperimentEvent>(experimentEvents, e) || (e.type !== 'ExperimentCreated' && e.type !== 'ExperimentUpdated')) continue;
      for (const l of e.data.savedMetrics ?? []) linked.add(l.savedMetricId);
    }
    if (linked.size === 0) return [];
    const metricEvents = (await Promise.all([...linked].map((id) => this.stream(experimentSavedMetricStream(id), asOf)))).flat();
    return foldInScratch(this.deps.scratch, {
      projections: [experimentSavedMetricsProjection],
      events: [...events, ...metricEvents],
      fixup: async (db) => {
        const live = await this.deps.live.all<{ id: number; created_position: number; link_index: number }>(
          'SELECT id, created_position, link_index FROM experiment_saved_metric_links WHERE experiment_id = ?',
          experimentId,
        );
        // Moved out of the way first, so no two rows share an id while they are renumbered.
        await db.run('UPDATE experiment_saved_metric_links SET id = -id');
        for (const l of live) await db.run('UPDATE experiment_saved_metric_links SET id = ? WHERE created_position = ? AND link_index = ?', l.id, l.created_position, l.link_index);
      },
      read: (db) => savedMetricQueries(db).linksOf(projectId, experimentId),
    });
  }

  /**
   * A cohort with its experiment (which makes it visible). Its `count` is membership now: exposures
   * come from ingestion records across the project, which this does not fold.
   */
  async cohort(projectId: number, id: number, asOf: AsOf): Promise<CohortRow | undefined> {
    const events = await this.stream(cohortStream(id), asOf);
    if (events.length === 0) return undefined;
    const experimentId = numberField(events[0], 'experimentId');
    const experimentEvents = experimentId === null ? [] : await this.stream(experimentStream(experimentId), asOf);
    const row = await foldInScratch(this.deps.scratch, {
      projections: [cohortsProjection, experimentsProjection],
      tables: [PERSON_DISTINCT_IDS],
      events: [...events, ...experimentEvents],
      read: (db) => cohortQueries(db).byId(projectId, id),
    });
    if (!row) return undefined;
    const live = await cohortQueries(this.deps.live).byId(projectId, id);
    return { ...row, count: live?.count ?? 0 };
  }

  async survey(projectId: number, id: string, asOf: AsOf): Promise<SurveyRow | undefined> {
    if (!UUID.test(id)) return undefined;
    const events = await this.stream(surveyStream(id), asOf);
    if (events.length === 0) return undefined;
    return foldInScratch(this.deps.scratch, { projections: [surveysProjection], events, read: (db) => surveyQueries(db).byId(projectId, id) });
  }

  async earlyAccessFeature(projectId: number, id: string, asOf: AsOf): Promise<EarlyAccessRow | undefined> {
    if (!UUID.test(id)) return undefined;
    const events = await this.stream(earlyAccessFeatureStream(id), asOf);
    if (events.length === 0) return undefined;
    const key = textField(events[0], 'flagKey');
    const flagEvents = key ? await this.stream(featureFlagStream(projectId, key), asOf) : [];
    return foldInScratch(this.deps.scratch, {
      projections: [featureFlagsProjection, earlyAccessProjection],
      events: [...events, ...flagEvents],
      fixup: (db) => this.liveFlagIds(db, projectId, key ? [key] : []),
      read: (db) => earlyAccessQueries(db).byId(projectId, id),
    });
  }

  /** Deleted ones too, as the live query (the caller answers 404 for those). */
  async batchExport(id: string, asOf: AsOf): Promise<BatchExportRow | undefined> {
    if (!UUID.test(id)) return undefined;
    id = id.toLowerCase();
    const events = await this.stream(batchExportStream(id), asOf);
    if (events.length === 0) return undefined;
    return foldInScratch(this.deps.scratch, { projections: [batchExportsProjection], events, read: (db) => batchExportQueries(db).byId(id) });
  }

  async run(runId: string, asOf: AsOf): Promise<RunRow | undefined> {
    if (!UUID.test(runId)) return undefined;
    runId = runId.toLowerCase();
    const events = await this.stream(batchExportRunStream(runId), asOf);
    if (events.length === 0) return undefined;
    return foldInScratch(this.deps.scratch, { projections: [batchExportRunsProjection], events, read: (db) => batchExportRunQueries(db).byId(runId) });
  }

  /** An export's newest runs as they stood: those scheduled by then (the live table knows which), each folded from its stream. */
  async latestRuns(batchExportId: string, limit: number, asOf: AsOf): Promise<RunRow[]> {
    const ids = await batchExportRunQueries(this.deps.live).idsScheduledBy(batchExportId, asOf, limit);
    const runs = await Promise.all(ids.map((runId) => this.run(runId, asOf)));
    return runs.filter((r): r is RunRow => r !== undefined);
  }

  /** Flags' ids are assigned in log order across the project (max + 1): the scratch store takes the live ones. */
  private async liveFlagIds(db: SqlSession, projectId: number, keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const live = await this.flags.byKey(projectId, key);
      if (live) await db.run('UPDATE feature_flags SET id = ? WHERE project_id = ? AND key = ?', live.id, projectId, key);
    }
  }
}
