import type { Observable } from 'rxjs';
import type { CohortQueries } from '../../projections/cohorts-queries';
import { experimentQueries } from '../../projections/experiments-queries';
import { savedMetricQueries } from '../../projections/experiment-saved-metrics-queries';
import { SavedMetricService } from './saved-metrics/service';
import { actionQueries } from '../../projections/actions-queries';
import { ActionService } from '../actions/service';
import { ExperimentExposureRunner } from './query/exposures-over-time';
import { ExperimentQueryRunner } from './query/runner';
import type { FeatureFlagQueries } from '../../projections/feature-flags-queries';
import type { SqlSession } from '../store/sql';
import { CohortService } from '../cohorts';
import type { FlagService } from '../flags/management';
import type { AppliedBatch } from '../store/runner';
import type { EventLog } from '../store/event-log';
import { ProjectEventCounter } from './results/event-counter';
import { ExperimentResults } from './results/service';
import { ExperimentService } from './service';
import type { AnalyticsStore } from '../store/analytics';

export { ExperimentService, type ExperimentServiceDeps } from './service';
export { ExperimentResults, type ResultsBody } from './results/service';
export { SavedMetricService } from './saved-metrics/service';
export { savedMetricDecider, type SavedMetricCommand, type SavedMetricState } from './saved-metrics/decider';
export { experimentDecider, type ExperimentCommand, type ExperimentState } from './decider';
export { checkDateOrder, checkPatch, type CreateExperimentInput, type ExperimentPatch, type UpdateExperimentInput } from './input';
export { parseMetric, type Metric } from './results/metric';
export { funnelCounts } from './results/funnel-counts';
export { experimentVariants, DEFAULT_VARIANTS, MAX_VARIANTS } from './variants';

export interface ExperimentsDeps {
  log: EventLog;
  /** The read-model session: the experiments' own queries. */
  session: SqlSession;
  /** The analytics store's reads of the events, for results and queries. */
  analytics: Pick<AnalyticsStore, 'experiments' | 'metrics'>;
  runner: {
    waitFor(position: number, names: readonly string[] | null): Promise<void>;
    readonly applied$: Observable<AppliedBatch>;
  };
  flags: FlagService;
  /** The feature flag queries (the runtime's, over the read-model port). */
  flagQueries: FeatureFlagQueries;
  /** The cohort queries (the runtime's, over the read-model port). */
  cohortQueries: CohortQueries;
  now?: () => Date;
}

/** Experiments and cohorts wired over the runtime's log, read models and flag service. */
export function openExperiments(deps: ExperimentsDeps) {
  const queries = {
    experiments: experimentQueries(deps.session),
    cohorts: deps.cohortQueries,
    savedMetrics: savedMetricQueries(deps.session),
    actions: actionQueries(deps.session),
  };
  const cohorts = new CohortService({ log: deps.log, cohorts: queries.cohorts });
  const service = new ExperimentService({
    log: deps.log,
    experiments: queries.experiments,
    flagQueries: deps.flagQueries,
    flags: deps.flags,
    cohorts,
    savedMetrics: queries.savedMetrics,
    waitFor: (position, names) => deps.runner.waitFor(position, names),
  });
  const savedMetrics = new SavedMetricService({ log: deps.log, savedMetrics: queries.savedMetrics, waitFor: (position, names) => deps.runner.waitFor(position, names) });
  // Actions live beside experiments: their first reader is ExperimentQuery's ActionsNode sources.
  const actions = new ActionService({ log: deps.log, actions: queries.actions, waitFor: (position, names) => deps.runner.waitFor(position, names), now: deps.now });
  const counter = new ProjectEventCounter(deps.runner.applied$);
  const results = new ExperimentResults({
    experiments: queries.experiments,
    queries: deps.analytics.experiments,
    counter,
    now: deps.now,
  });
  const query = new ExperimentQueryRunner({ experiments: queries.experiments, actions: queries.actions, metricQueries: deps.analytics.metrics, now: deps.now });
  const exposures = new ExperimentExposureRunner({ experiments: queries.experiments, actions: queries.actions, metricQueries: deps.analytics.metrics, now: deps.now });
  return {
    service,
    savedMetrics,
    actions,
    results,
    query,
    exposures,
    queries,
    close: () => counter.close(),
  };
}

export type Experiments = ReturnType<typeof openExperiments>;
