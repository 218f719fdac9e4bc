import { randomUUID } from 'node:crypto';
import { surveyStream, type Actor, type SurveyFields } from '../../streams';
import type { FeatureFlagQueries } from '../../projections/feature-flags-queries';
import type { SurveyQueries, SurveyRow } from '../../projections/surveys-queries';
import { notFound, validationError } from '../errors';
import { handleCommand } from '../runtime/command-handler';
import type { EventLog } from '../store/event-log';
import { surveyDecider, type SurveyCommand } from './decider';
import { checkSurvey, parseSurveyCreate, parseSurveyUpdate } from './input';

export interface SurveyServiceDeps {
  log: EventLog;
  surveys: SurveyQueries;
  flags: FeatureFlagQueries;
  waitFor: (position: number) => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Commands over surveys: validate (fields, then rules over the whole survey), decide, append, read back. */
export class SurveyService {
  constructor(private readonly deps: SurveyServiceDeps) {}

  async create(projectId: number, body: Record<string, unknown>, actor: Actor): Promise<SurveyRow> {
    const fields = parseSurveyCreate(body);
    this.check(projectId, fields, null);
    const surveyId = randomUUID();
    await this.run(projectId, surveyId, { type: 'CreateSurvey', surveyId, projectId, fields, createdBy: actor.type === 'user' ? actor.id : null }, actor);
    return this.get(projectId, surveyId);
  }

  async update(projectId: number, id: string, body: Record<string, unknown>, actor: Actor): Promise<SurveyRow> {
    const current = this.get(projectId, id);
    const changes = parseSurveyUpdate(body);
    this.check(projectId, { ...current.fields, ...changes }, id);
    await this.run(projectId, id, { type: 'UpdateSurvey', changes }, actor);
    return this.get(projectId, id);
  }

  async delete(projectId: number, id: string, actor: Actor): Promise<void> {
    this.get(projectId, id);
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
