import { randomBytes, randomUUID } from 'node:crypto';
import { surveyStream, type Actor, type SurveyFields } from '../../streams';
import type { FeatureFlagQueries } from '../../projections/feature-flags-queries';
import type { SurveyQueries, SurveyRow } from '../../projections/surveys-queries';
import { DomainError, notFound, validationError } from '../errors';
import type { FlagService } from '../flags/management';
import { handleCommandAndWait } from '../runtime/read-your-writes';
import type { EventLog } from '../store/event-log';
import { surveyDecider, type SurveyCommand } from './decider';
import { checkSurvey, type SurveyCreate, type SurveyUpdate } from './input';
import { internalFlagFilters, internalFlagName, surveyRunning } from './targeting';

export interface SurveyServiceDeps {
  log: EventLog;
  surveys: SurveyQueries;
  flags: FeatureFlagQueries;
  flagService: FlagService;
  waitFor: (position: number) => Promise<void>;
}

/** PostHog's targeting flag key: `survey-targeting-` and 10 random hex digits. */
const newTargetingKey = () => `survey-targeting-${randomBytes(5).toString('hex')}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Commands over surveys: validate (fields, then rules over the whole survey), decide, append, read back. */
export class SurveyService {
  constructor(private readonly deps: SurveyServiceDeps) {}

  /**
   * The survey first, its flags second (internal, then user targeting if filters were given): the
   * survey names each flag's key before the flag exists, so no flag is ever made without a survey
   * to point at; a flag whose append failed is simply absent (the survey is served without it).
   */
  async create(projectId: number, { fields, targeting }: SurveyCreate, actor: Actor): Promise<SurveyRow> {
    await this.check(projectId, fields, null);
    const targetingFilters = targeting.filters && (await this.targetingFilters(projectId, targeting.filters));
    const surveyId = randomUUID();
    const internalFlagKey = `${newTargetingKey()}-custom`;
    const targetingFlagKey = targetingFilters ? newTargetingKey() : null;
    const createdBy = actor.type === 'user' ? actor.id : null;
    await this.run(projectId, surveyId, { type: 'CreateSurvey', surveyId, projectId, fields, internalFlagKey, targetingFlagKey, createdBy }, actor);
    const flag = { key: internalFlagKey, name: internalFlagName(fields.name), filters: internalFlagFilters(surveyId, fields), active: surveyRunning(fields) };
    await this.deps.flagService.create(projectId, flag, actor);
    if (targetingFlagKey)
      await this.deps.flagService.create(projectId, { key: targetingFlagKey, name: internalFlagName(fields.name), filters: targetingFilters, active: surveyRunning(fields) }, actor);
    return this.get(projectId, surveyId);
  }

  /**
   * The flags follow first (internal: active while running, iteration keys; targeting: new
   * filters, removal, active while running), the survey's fields second: a retry completes a
   * half-done PATCH.
   */
  async update(projectId: number, id: string, { changes, targeting }: SurveyUpdate, actor: Actor): Promise<SurveyRow> {
    const current = await this.get(projectId, id);
    const next = { ...current.fields, ...changes };
    await this.check(projectId, next, id);
    const targetingFilters = targeting.filters && (await this.targetingFilters(projectId, targeting.filters));
    const running = surveyRunning(next);

    const internal = await this.liveFlag(projectId, current.internal_flag_key);
    if (internal) {
      const filters = internalFlagFilters(id, next);
      const update: { filters?: unknown; active?: boolean } = {};
      if (JSON.stringify(internal.filters.groups) !== JSON.stringify(filters.groups)) update.filters = filters;
      if (internal.active !== running) update.active = running;
      if (Object.keys(update).length) await this.deps.flagService.update(projectId, internal.id, update, actor);
    }

    const targetingFlag = await this.liveFlag(projectId, current.targeting_flag_key);
    if (targeting.remove) {
      if (targetingFlag) await this.deps.flagService.delete(projectId, targetingFlag.id, actor);
      await this.run(projectId, id, { type: 'SetTargetingFlag', targetingFlagKey: null }, actor);
    } else if (targetingFilters && !targetingFlag) {
      const key = newTargetingKey();
      await this.run(projectId, id, { type: 'SetTargetingFlag', targetingFlagKey: key }, actor);
      await this.deps.flagService.create(projectId, { key, name: internalFlagName(next.name), filters: targetingFilters, active: running }, actor);
    } else if (targetingFlag) {
      const update: { filters?: unknown; active?: boolean } = {};
      if (targetingFilters) update.filters = { ...targetingFlag.filters, ...targetingFilters };
      if (targetingFlag.active !== running) update.active = running;
      if (Object.keys(update).length) await this.deps.flagService.update(projectId, targetingFlag.id, update, actor);
    }
    await this.run(projectId, id, { type: 'UpdateSurvey', changes }, actor);
    return this.get(projectId, id);
  }

  /** The flags go first, then the survey (PostHog deletes them with it). */
  async delete(projectId: number, id: string, actor: Actor): Promise<void> {
    const current = await this.get(projectId, id);
    for (const key of [current.internal_flag_key, current.targeting_flag_key]) {
      const flag = await this.liveFlag(projectId, key);
      if (flag) await this.deps.flagService.delete(projectId, flag.id, actor);
    }
    await this.run(projectId, id, { type: 'DeleteSurvey' }, actor);
  }

  async get(projectId: number, id: string): Promise<SurveyRow> {
    const row = UUID.test(id) ? await this.deps.surveys.byId(projectId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  /** The flag service's checks, reported against the survey's field. */
  private async targetingFilters(projectId: number, filters: Record<string, unknown>) {
    try {
      return await this.deps.flagService.checkedFilters(projectId, filters);
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'validation') throw validationError(err.message, 'targeting_flag_filters', err.code ?? undefined);
      throw err;
    }
  }

  private async liveFlag(projectId: number, key: string | null) {
    const flag = key === null ? undefined : await this.deps.flags.byKey(projectId, key);
    return flag && !flag.deleted ? flag : undefined;
  }

  private async check(projectId: number, fields: SurveyFields, selfId: string | null): Promise<void> {
    if (await this.deps.surveys.nameTaken(projectId, fields.name, selfId)) throw validationError('There is already a survey with this name.', 'name', 'unique');
    let variants: string[] | null = null;
    if (fields.linked_flag_id !== null) {
      const flag = await this.deps.flags.byId(projectId, fields.linked_flag_id);
      if (!flag || flag.deleted) throw validationError(`Invalid pk "${fields.linked_flag_id}" - object does not exist.`, 'linked_flag_id', 'does_not_exist');
      const multivariate = flag.filters.multivariate as { variants?: { key: string }[] } | null | undefined;
      variants = (multivariate?.variants ?? []).map((v) => v.key);
    }
    checkSurvey(fields, variants);
  }

  private async run(projectId: number, id: string, command: SurveyCommand, actor: Actor): Promise<void> {
    await handleCommandAndWait(this.deps.log, surveyStream(id), surveyDecider, command, { actor, projectId }, { waitFor: this.deps.waitFor });
  }
}
