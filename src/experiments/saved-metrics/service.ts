import { randomUUID } from 'node:crypto';
import { experimentSavedMetricStream, type Actor, type SavedMetricFields } from '../../../streams';
import type { SavedMetricQueries, SavedMetricRow } from '../../../projections/experiment-saved-metrics-queries';
import { notFound, validationError } from '../../errors';
import { handleCommandAndWait } from '../../runtime/read-your-writes';
import { withNextId } from '../../runtime/sequential-id';
import type { EventLog } from '../../store/event-log';
import { savedMetricDecider, type SavedMetricCommand } from './decider';
import { checkSavedMetricQuery } from './query';

export interface SavedMetricServiceDeps {
  log: EventLog;
  savedMetrics: SavedMetricQueries;
  /** Read-your-writes over the named projections. */
  waitFor: (position: number, names: readonly string[]) => Promise<void>;
}

const NAME_TAKEN = 'A shared metric with this name already exists.';

/** Commands over saved (shared) experiment metrics (PostHog's ExperimentSavedMetricService). */
export class SavedMetricService {
  constructor(private readonly deps: SavedMetricServiceDeps) {}

  /** The query is checked as an experiment's metric and given a uuid of its own (a promoted inline metric's is not kept). */
  async create(projectId: number, given: SavedMetricFields, actor: Actor): Promise<SavedMetricRow> {
    const fields = { ...given, query: { ...checkSavedMetricQuery(given.query), uuid: randomUUID() } };
    await this.checkName(projectId, fields.name, null);
    const createdBy = actor.type === 'user' ? actor.id : null;
    const id = await withNextId(await this.deps.savedMetrics.nextId(), async (id) => {
      await this.run(projectId, id, { type: 'CreateSavedMetric', savedMetricId: id, projectId, fields, createdBy }, actor, 1);
      return id;
    });
    return this.get(projectId, id);
  }

  /** A changed query is checked again; its uuid stays the stored one and may not be changed. */
  async update(projectId: number, id: number, changes: Partial<SavedMetricFields>, actor: Actor): Promise<SavedMetricRow> {
    const current = await this.get(projectId, id);
    const checked = { ...changes };
    if (changes.query !== undefined) {
      const uuid = current.fields.query.uuid;
      const incoming = changes.query.uuid;
      if (typeof uuid === 'string' && typeof incoming === 'string' && incoming !== uuid) throw validationError('Saved metric UUID cannot be changed', 'query');
      checked.query = { ...checkSavedMetricQuery(changes.query), uuid: typeof uuid === 'string' ? uuid : randomUUID() };
    }
    if (changes.name !== undefined) await this.checkName(projectId, changes.name, id);
    await this.run(projectId, id, { type: 'UpdateSavedMetric', changes: checked }, actor);
    return this.get(projectId, id);
  }

  /** The links to experiments go with it (the read model drops them), as PostHog's cascade does. */
  async delete(projectId: number, id: number, actor: Actor): Promise<void> {
    await this.get(projectId, id);
    await this.run(projectId, id, { type: 'DeleteSavedMetric' }, actor);
  }

  async get(projectId: number, id: number): Promise<SavedMetricRow> {
    const row = await this.deps.savedMetrics.byId(projectId, id);
    if (!row) throw notFound();
    return row;
  }

  /** Unique within the project, ignoring case (checked before the append; two racing creates may both pass). */
  private async checkName(projectId: number, name: string, except: number | null): Promise<void> {
    if (await this.deps.savedMetrics.nameTaken(projectId, name, except)) throw validationError(NAME_TAKEN, 'name', 'invalid_input');
  }

  private async run(projectId: number, id: number, command: SavedMetricCommand, actor: Actor, maxAttempts?: number): Promise<void> {
    await handleCommandAndWait(this.deps.log, experimentSavedMetricStream(id), savedMetricDecider, command, { actor, projectId }, {
      waitFor: (position) => this.deps.waitFor(position, ['experiment_saved_metrics']),
      maxAttempts,
    });
  }
}
