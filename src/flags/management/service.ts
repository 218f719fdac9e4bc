import { featureFlagStream, type Actor } from '../../../streams';
import type { FeatureFlagQueries, FeatureFlagRow } from '../../../projections/feature-flags-queries';
import type { EventLog } from '../../store/event-log';
import { handleCommandAndWait } from '../../runtime/read-your-writes';
import { recordedAtOf } from '../../runtime/recorded-at';
import { notFound, validationError } from '../../errors';
import { flagDecider, type FlagCommand } from './decider';
import { groupTypeIndexesOf, validateFilters, validateFlagKey } from './filters';
import { checkOperands, cohortIdsNamed } from './operands';
import type { FlagFilters } from '../types';

export interface FlagServiceDeps {
  log: EventLog;
  flags: FeatureFlagQueries;
  /** Group type indexes in use in a project (from the persons & groups read model). */
  groupTypeIndexes: (projectId: number) => Promise<number[]>;
  /** Whether a cohort of this project has that id (flag conditions may name only those). */
  cohortExists: (projectId: number, cohortId: number) => boolean | Promise<boolean>;
  waitFor: (position: number) => Promise<void>;
}

export interface CreateFlagInput {
  /** Checked by validateFlagKey, so a missing key gets PostHog's "This field is required." */
  key?: unknown;
  name?: string;
  filters?: unknown;
  active?: boolean;
  ensure_experience_continuity?: boolean;
}

export interface UpdateFlagInput {
  name?: string;
  filters?: unknown;
  active?: boolean;
  ensure_experience_continuity?: boolean;
  deleted?: boolean;
  key?: unknown;
}

/** Commands over feature flags: validate, decide, append, then answer once the read model has it. */
export class FlagService {
  constructor(private readonly deps: FlagServiceDeps) {}

  async checkedFilters(projectId: number, raw: unknown): Promise<FlagFilters> {
    const filters = validateFilters(raw);
    const known = await this.deps.groupTypeIndexes(projectId);
    for (const index of groupTypeIndexesOf(filters))
      if (!known.includes(index)) throw validationError(`Invalid group type index ${index}: no such group type in this project.`, 'filters');
    // The cohorts named are looked up first, so the operand checks keep their order.
    const cohorts = new Set<number>();
    for (const id of cohortIdsNamed(filters)) if (await this.deps.cohortExists(projectId, id)) cohorts.add(id);
    checkOperands(filters, (cohortId) => cohorts.has(cohortId));
    return filters;
  }

  async create(projectId: number, input: CreateFlagInput, actor: Actor, extra: { experimentId?: number | null } = {}): Promise<FeatureFlagRow> {
    const key = validateFlagKey(input.key);
    const filters = await this.checkedFilters(projectId, input.filters);
    const command: FlagCommand = {
      type: 'CreateFlag',
      projectId,
      key,
      name: input.name ?? '',
      filters,
      active: input.active ?? true,
      ensureExperienceContinuity: input.ensure_experience_continuity ?? false,
      createdBy: actor.type === 'user' ? actor.id : null,
      experimentId: extra.experimentId ?? null,
    };
    return this.run(projectId, key, command, actor);
  }

  async update(projectId: number, id: number, input: UpdateFlagInput, actor: Actor): Promise<FeatureFlagRow> {
    const flag = await this.existing(projectId, id);
    if (input.key !== undefined && input.key !== flag.key)
      throw validationError("A flag's key cannot be changed; create a new flag instead.", 'key');
    if (input.deleted === true) return this.run(projectId, flag.key, { type: 'DeleteFlag' }, actor);
    const command: FlagCommand = {
      type: 'UpdateFlag',
      name: input.name,
      filters: input.filters === undefined ? undefined : await this.checkedFilters(projectId, input.filters),
      active: input.active,
      ensureExperienceContinuity: input.ensure_experience_continuity,
    };
    return this.run(projectId, flag.key, command, actor);
  }

  async delete(projectId: number, id: number, actor: Actor): Promise<void> {
    const flag = await this.existing(projectId, id);
    await this.run(projectId, flag.key, { type: 'DeleteFlag' }, actor);
  }

  private async existing(projectId: number, id: number): Promise<FeatureFlagRow> {
    const flag = await this.deps.flags.byId(projectId, id);
    if (!flag || flag.deleted) throw notFound();
    return flag;
  }

  /**
   * Answers with the flag as this command left it: the read model may already hold a later write
   * (a concurrent PATCH), so the row's changeable fields come from the state the command produced.
   */
  private async run(projectId: number, key: string, command: FlagCommand, actor: Actor): Promise<FeatureFlagRow> {
    const stream = featureFlagStream(projectId, key);
    const { state } = await handleCommandAndWait(this.deps.log, stream, flagDecider, command, { actor, projectId }, { waitFor: this.deps.waitFor });
    const row = (await this.deps.flags.byKey(projectId, key))!;
    if (row.version === state.version) return row;
    return {
      ...row,
      name: state.name,
      filters: state.filters,
      active: state.active,
      deleted: state.deleted,
      ensure_experience_continuity: state.ensureExperienceContinuity,
      version: state.version,
      updated_at: await recordedAtOf(this.deps.log, stream, state.version - 1),
    };
  }
}
