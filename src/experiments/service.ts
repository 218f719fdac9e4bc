import { experimentStream, featureFlagStream, type Actor } from '../../streams';
import type { ExperimentQueries, ExperimentRow } from '../../projections/experiments-queries';
import type { FeatureFlagQueries, FeatureFlagRow } from '../../projections/feature-flags-queries';
import type { SavedMetricQueries } from '../../projections/experiment-saved-metrics-queries';
import type { CohortService } from '../cohorts';
import { DomainError, notFound, validationError } from '../errors';
import type { FlagService } from '../flags/management';
import type { FlagFilters } from '../flags/types';
import { handleCommand } from '../runtime/command-handler';
import { handleCommandAndWait } from '../runtime/read-your-writes';
import { recordedAtOf } from '../runtime/recorded-at';
import { withNextId } from '../runtime/sequential-id';
import type { EventLog } from '../store/event-log';
import { experimentDecider, type ExperimentCommand, type ExperimentState } from './decider';
import { checkPatch, type CreateExperimentInput, type CurrentFields, type ExperimentPatch, type UpdateExperimentInput } from './input';
import { createDefaults, settleCurrentFields } from './metrics/settle';
import { checkVariantsFrozen, experimentFlagFilters, experimentVariants, variantKeysOf } from './variants';

export interface ExperimentServiceDeps {
  log: EventLog;
  experiments: ExperimentQueries;
  flagQueries: FeatureFlagQueries;
  flags: FlagService;
  cohorts: CohortService;
  /** The saved metrics `saved_metrics_ids` may link. */
  savedMetrics: SavedMetricQueries;
  /** Read-your-writes over the named projections. */
  waitFor: (position: number, names: readonly string[]) => Promise<void>;
}

const currentFieldsOf = (row: ExperimentRow): CurrentFields => ({
  metrics: row.metrics,
  metricsSecondary: row.metrics_secondary,
  primaryMetricsOrderedUuids: row.primary_metrics_ordered_uuids,
  secondaryMetricsOrderedUuids: row.secondary_metrics_ordered_uuids,
  statsConfig: row.stats_config,
  exposureCriteria: row.exposure_criteria,
  conclusion: row.conclusion,
  conclusionComment: row.conclusion_comment,
});

/** The read models an experiment's answer comes from: its row, and its links to saved metrics. */
const EXPERIMENT_READS = ['experiments', 'experiment_saved_metrics'];

const KEY_TAKEN = 'There is already a feature flag with this key.';
const keyTaken = () => validationError(KEY_TAKEN, 'feature_flag_key', 'unique');

/** Commands over experiments, each touching the experiment and (through FlagService) its flag. */
export class ExperimentService {
  constructor(private readonly deps: ExperimentServiceDeps) {}

  /**
   * No orphan on failure. Everything that can be checked is checked before any append (fields,
   * variants, group types, key free). Then:
   *   1. the experiment is appended on a fresh `experiment-<id>` stream (withNextId: no gaps, no
   *      collisions under concurrent creates);
   *   2. the flag is created with `experimentId` = that id.
   * The experiment is visible only when a flag created FOR IT exists (the read queries join on the
   * flag's experiment_id), so between 1 and 2, or if 2 never happens (crash), nothing half-made is
   * seen. If 2 fails (a concurrent create took the key) the experiment is marked abandoned. The
   * reverse orphan (a flag pointing at no experiment) cannot happen: the flag is always second.
   */
  async create(projectId: number, given: CreateExperimentInput, actor: Actor): Promise<ExperimentRow> {
    const { log, experiments, flagQueries, flags } = this.deps;
    const filters = await flags.checkedFilters(projectId, experimentFlagFilters(given.parameters));
    const input: CreateExperimentInput = { ...given, ...createDefaults(settleCurrentFields(given, null, experimentVariants(given.parameters).map((v) => v.key))) };
    if (await flagQueries.byKey(projectId, input.featureFlagKey)) throw keyTaken();
    await this.checkSavedMetrics(projectId, input);

    const createdBy = actor.type === 'user' ? actor.id : null;
    const { id, position, state } = await withNextId(await experiments.nextId(), async (id) => {
      const command: ExperimentCommand = { type: 'CreateExperiment', experimentId: id, projectId, createdBy, ...input };
      const { result, state } = await handleCommand(log, experimentStream(id), experimentDecider, command, { actor, projectId }, { maxAttempts: 1 });
      return { id, position: result!.lastPosition, state };
    });

    const flagInput = { key: input.featureFlagKey, name: `Feature Flag for Experiment ${input.name}`, filters, active: input.startDate !== null };
    let flag: FeatureFlagRow;
    try {
      flag = await flags.create(projectId, flagInput, actor, { experimentId: id });
    } catch (err) {
      // The log, not the error type, says whether the flag append happened (it may have, and the
      // failure come from waiting on the projection): only a missing flag makes the experiment void.
      if (!(await this.flagCreatedFor(projectId, input.featureFlagKey, id))) {
        await this.run(projectId, id, { type: 'AbandonCreation', reason: err instanceof Error ? err.message : String(err) }, actor);
        if (err instanceof DomainError && err.message === KEY_TAKEN) throw keyTaken();
      }
      throw err;
    }
    await this.deps.waitFor(position, EXPERIMENT_READS);
    return this.own(projectId, id, state, flag);
  }

  /**
   * compat §4 PATCH. The flag changes first (draft variants, activation on start), the experiment
   * second: if the second append fails, retrying the same PATCH completes it (flag updates that
   * are already applied record nothing).
   */
  async update(projectId: number, id: number, patch: ExperimentPatch, actor: Actor): Promise<ExperimentRow> {
    const current = await this.visible(projectId, id);
    const flag = current.feature_flag;
    const checked = checkPatch(patch, current.feature_flag_key, { startDate: current.start_date, endDate: current.end_date });
    const variantKeys = checked.parameters !== undefined ? experimentVariants(checked.parameters).map((v) => v.key) : variantKeysOf(flag.filters);
    const changes = { ...checked, ...settleCurrentFields(checked, currentFieldsOf(current), variantKeys) };
    const launched = current.start_date !== null;
    checkVariantsFrozen(launched, variantKeysOf(flag.filters), changes.parameters);
    await this.checkSavedMetrics(projectId, changes);

    const flagUpdate: { filters?: FlagFilters; active?: boolean } = {};
    if (!launched && changes.parameters !== undefined) {
      const groups = flag.filters.groups as FlagFilters['groups'];
      flagUpdate.filters = await this.deps.flags.checkedFilters(projectId, experimentFlagFilters(changes.parameters, groups));
    }
    if (!launched && changes.startDate) flagUpdate.active = true;
    const ownFlag = Object.keys(flagUpdate).length && !flag.deleted ? await this.deps.flags.update(projectId, flag.id, flagUpdate, actor) : undefined;

    const state = await this.run(projectId, id, { type: 'UpdateExperiment', changes }, actor);
    return this.own(projectId, id, state, ownFlag);
  }

  /** Flag first (soft delete), experiment second: a retry after a partial failure finishes the job. */
  async delete(projectId: number, id: number, actor: Actor): Promise<void> {
    const current = await this.visible(projectId, id);
    if (!current.feature_flag.deleted) await this.deps.flags.delete(projectId, current.feature_flag.id, actor);
    await this.run(projectId, id, { type: 'DeleteExperiment' }, actor);
  }

  /**
   * Cohort first, link second. A cohort is listed only once its experiment links it, and if the
   * link is refused (a concurrent request linked another cohort first) the new cohort is deleted.
   */
  async createExposureCohort(projectId: number, id: number, actor: Actor): Promise<ExperimentRow> {
    const current = await this.visible(projectId, id);
    if (current.start_date === null) throw validationError('Experiment does not have a start date');
    if (current.exposure_cohort !== null) throw validationError('Experiment already has an exposure cohort');
    const input = { experimentId: id, experimentName: current.name, flagKey: current.feature_flag_key, since: current.start_date };
    const { cohortId, position } = await this.deps.cohorts.createExposureCohort(projectId, input, actor);
    let state: ExperimentState;
    try {
      state = await this.run(projectId, id, { type: 'SetExposureCohort', cohortId }, actor);
    } catch (err) {
      await this.deps.cohorts.delete(projectId, cohortId, actor);
      throw err;
    }
    await this.deps.waitFor(position, ['cohorts']);
    return this.own(projectId, id, state);
  }

  /** Each linked saved metric must be one of this project's (PostHog's check, naming the id). */
  private async checkSavedMetrics(projectId: number, input: Pick<UpdateExperimentInput, 'savedMetrics'>): Promise<void> {
    for (const { savedMetricId } of input.savedMetrics ?? [])
      if (!(await this.deps.savedMetrics.byId(projectId, savedMetricId)))
        throw validationError(`Saved metric ${savedMetricId} does not exist or does not belong to this project`, 'saved_metrics_ids', 'invalid_input');
  }

  private async visible(projectId: number, id: number): Promise<ExperimentRow> {
    const row = await this.deps.experiments.byId(projectId, id);
    if (!row) throw notFound();
    return row;
  }

  private async flagCreatedFor(projectId: number, key: string, experimentId: number): Promise<boolean> {
    const [first] = await this.deps.log.readStream(featureFlagStream(projectId, key), { maxCount: 1 });
    return first?.type === 'FeatureFlagCreated' && (first.data as { experimentId: number | null }).experimentId === experimentId;
  }

  /** The state the command left the experiment in (the current one when it changed nothing). */
  private async run(projectId: number, id: number, command: ExperimentCommand, actor: Actor): Promise<ExperimentState> {
    const waitFor = (position: number) => this.deps.waitFor(position, EXPERIMENT_READS);
    const { state } = await handleCommandAndWait(this.deps.log, experimentStream(id), experimentDecider, command, { actor, projectId }, { waitFor });
    return state;
  }

  /**
   * The experiment as this request's own writes left it. The read model may already hold a later
   * write (a concurrent PATCH): then the changeable fields come from the command's state, and the
   * nested flag from the flag write this request made, if any.
   */
  private async own(projectId: number, id: number, state: ExperimentState, flag?: FeatureFlagRow): Promise<ExperimentRow> {
    const row = await this.visible(projectId, id);
    const mine: ExperimentRow =
      row.version === state.version
        ? row
        : {
            ...row,
            name: state.name,
            description: state.description,
            start_date: state.startDate,
            end_date: state.endDate,
            parameters: state.parameters,
            secondary_metrics: state.secondaryMetrics,
            filters: state.filters,
            archived: state.archived,
            exposure_cohort: state.exposureCohort,
            metrics: state.metrics,
            metrics_secondary: state.metricsSecondary,
            primary_metrics_ordered_uuids: state.primaryMetricsOrderedUuids,
            secondary_metrics_ordered_uuids: state.secondaryMetricsOrderedUuids,
            stats_config: state.statsConfig,
            exposure_criteria: state.exposureCriteria,
            conclusion: state.conclusion,
            conclusion_comment: state.conclusionComment,
            version: state.version,
            updated_at: await recordedAtOf(this.deps.log, experimentStream(id), state.version - 1),
          };
    if (!flag) return mine;
    const { id: flagId, project_id, key, name, filters, active, deleted, ensure_experience_continuity, version } = flag;
    return { ...mine, feature_flag: { id: flagId, project_id, key, name, filters, active, deleted, ensure_experience_continuity, version } };
  }
}
