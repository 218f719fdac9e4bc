import { randomBytes, randomUUID } from 'node:crypto';
import { surveyStream, type Actor, type SurveyFields } from '../../streams';
import type { FeatureFlagQueries } from '../../projections/feature-flags-queries';
import type { SurveyQueries, SurveyRow } from '../../projections/surveys-queries';
import { notFound, validationError } from '../errors';
import type { FlagService } from '../flags/management';
import { handleCommand } from '../runtime/command-handler';
import type { EventLog } from '../store/event-log';
import { surveyDecider, type SurveyCommand } from './decider';
import { checkSurvey, parseSurveyCreate, parseSurveyUpdate } from './input';
import { internalFlagFilters, internalFlagName, surveyRunning } from './targeting';

export interface SurveyServiceDeps {
  log: EventLog;
  surveys: SurveyQueries;
  flags: FeatureFlagQueries;
  flagService: FlagService;
  waitFor: (position: number) => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Commands over surveys: validate (fields, then rules over the whole survey), decide, append, read back. */
export class SurveyService {
  constructor(private readonly deps: SurveyServiceDeps) {}

  /**
   * The survey first, its internal targeting flag second. The flag only narrows who sees the
   * survey: if its append fails the survey still works (served without the key), and the flag is
   * never made without a survey to point at.
   */
  async create(projectId: number, body: Record<string, unknown>, actor: Actor): Promise<SurveyRow> {
    const fields = parseSurveyCreate(body);
    this.check(projectId, fields, null);
    const surveyId = randomUUID();
    const internalFlagKey = `survey-targeting-${randomBytes(5).toString('hex')}-custom`;
    const createdBy = actor.type === 'user' ? actor.id : null;
    await this.run(projectId, surveyId, { type: 'CreateSurvey', surveyId, projectId, fields, internalFlagKey, createdBy }, actor);
    const flag = { key: internalFlagKey, name: internalFlagName(fields.name), filters: internalFlagFilters(surveyId, fields), active: surveyRunning(fields) };
    await this.deps.flagService.create(projectId, flag, actor);
    return this.get(projectId, surveyId);
  }

  /** The internal flag follows first (active while running, iteration keys), the survey second: a retry completes a half-done PATCH. */
  async update(projectId: number, id: string, body: Record<string, unknown>, actor: Actor): Promise<SurveyRow> {
    const current = this.get(projectId, id);
    const changes = parseSurveyUpdate(body);
    const next = { ...current.fields, ...changes };
    this.check(projectId, next, id);
    const flag = this.deps.flags.byKey(projectId, current.internal_flag_key);
    if (flag && !flag.deleted) {
      const filters = internalFlagFilters(id, next);
      const update: { filters?: unknown; active?: boolean } = {};
      if (JSON.stringify(flag.filters.groups) !== JSON.stringify(filters.groups)) update.filters = filters;
      if (flag.active !== surveyRunning(next)) update.active = surveyRunning(next);
      if (Object.keys(update).length) await this.deps.flagService.update(projectId, flag.id, update, actor);
    }
    await this.run(projectId, id, { type: 'UpdateSurvey', changes }, actor);
    return this.get(projectId, id);
  }

  /** The internal flag goes first, then the survey (PostHog deletes both). */
  async delete(projectId: number, id: string, actor: Actor): Promise<void> {
    const current = this.get(projectId, id);
    const flag = this.deps.flags.byKey(projectId, current.internal_flag_key);
    if (flag && !flag.deleted) await this.deps.flagService.delete(projectId, flag.id, actor);
    await this.run(projectId, id, { type: 'DeleteSurvey' }, actor);
  }

  get(projectId: number, id: string): SurveyRow {
    const row = UUID.test(id) ? this.deps.surveys.byId(projectId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  private check(projectId: number, fields: SurveyFields, selfId: string | null): void {
    if (this.deps.surveys.nameTaken(projectId, fields.name, selfId)) throw validationError('There is already a survey with this name.', 'name', 'unique');
    let variants: string[] | null = null;
    if (fields.linked_flag_id !== null) {
      const flag = this.deps.flags.byId(projectId, fields.linked_flag_id);
      if (!flag || flag.deleted) throw validationError(`Invalid pk "${fields.linked_flag_id}" - object does not exist.`, 'linked_flag_id', 'does_not_exist');
      const multivariate = flag.filters.multivariate as { variants?: { key: string }[] } | null | undefined;
      variants = (multivariate?.variants ?? []).map((v) => v.key);
    }
    checkSurvey(fields, variants);
  }

  private async run(projectId: number, id: string, command: SurveyCommand, actor: Actor): Promise<void> {
    const { result } = await handleCommand(this.deps.log, surveyStream(id), surveyDecider, command, { actor, projectId });
    if (result) await this.deps.waitFor(result.lastPosition);
  }
}
