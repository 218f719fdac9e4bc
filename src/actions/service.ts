import { actionStream, type ActionFields, type Actor } from '../../streams';
import type { ActionQueries, ActionRow } from '../../projections/actions-queries';
import { notFound, validationError } from '../errors';
import { handleCommandAndWait } from '../runtime/read-your-writes';
import { withNextId } from '../runtime/sequential-id';
import type { EventLog } from '../store/event-log';
import { actionDecider, type ActionCommand } from './decider';

export interface ActionServiceDeps {
  log: EventLog;
  actions: ActionQueries;
  /** Read-your-writes over the named projections. */
  waitFor: (position: number, names: readonly string[]) => Promise<void>;
  now?: () => Date;
}

/** Commands over PostHog's actions (its ActionSerializer's create and update). */
export class ActionService {
  constructor(private readonly deps: ActionServiceDeps) {}

  /** `deleted: true` on create makes it deleted at once, as PostHog's writable `deleted` does. */
  async create(projectId: number, fields: ActionFields, deleted: boolean, actor: Actor): Promise<ActionRow> {
    await this.checkName(projectId, fields.name, null);
    const createdBy = actor.type === 'user' ? actor.id : null;
    const id = await withNextId(await this.deps.actions.nextId(), async (id) => {
      await this.run(projectId, id, { type: 'CreateAction', actionId: id, projectId, fields, createdBy }, actor, 1);
      return id;
    });
    if (deleted) await this.run(projectId, id, { type: 'UpdateAction', changes: {}, deleted: true }, actor);
    return this.get(projectId, id);
  }

  /**
   * PostHog pins with the server's time whatever timestamp is given (and keeps an existing pin);
   * `deleted` soft-deletes or restores.
   */
  async update(projectId: number, id: number, given: Partial<ActionFields>, deleted: boolean | undefined, actor: Actor): Promise<ActionRow> {
    const current = await this.get(projectId, id);
    const changes = { ...given };
    if (changes.pinned_at) changes.pinned_at = current.fields.pinned_at ?? (this.deps.now?.() ?? new Date()).toISOString();
    if (changes.name !== undefined) await this.checkName(projectId, changes.name, id);
    await this.run(projectId, id, { type: 'UpdateAction', changes, deleted }, actor);
    return this.get(projectId, id);
  }

  /** Deleted ones included: PostHog reads a soft-deleted action by id. */
  async get(projectId: number, id: number): Promise<ActionRow> {
    const row = await this.deps.actions.byId(projectId, id);
    if (!row) throw notFound();
    return row;
  }

  /** Unique among the project's live actions (checked before the append; two racing creates may both pass). */
  private async checkName(projectId: number, name: string | null, except: number | null): Promise<void> {
    if (name === null) return;
    const taken = await this.deps.actions.nameTakenBy(projectId, name, except);
    if (taken !== undefined) throw validationError(`This project already has an action with this name, ID ${taken}`, 'name', 'unique');
  }

  private async run(projectId: number, id: number, command: ActionCommand, actor: Actor, maxAttempts?: number): Promise<void> {
    await handleCommandAndWait(this.deps.log, actionStream(id), actionDecider, command, { actor, projectId }, {
      waitFor: (position) => this.deps.waitFor(position, ['actions']),
      maxAttempts,
    });
  }
}
