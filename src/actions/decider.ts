import { actionEvents, type ActionEvent, type ActionFields } from '../../streams';
import { stableJson } from '../../projections/json';
import { conflict, notFound } from '../errors';
import type { Decider } from '../runtime/decider';

export interface ActionState {
  exists: boolean;
  deleted: boolean;
  actionId: number;
  projectId: number;
  fields: ActionFields | null;
  version: number;
}

export type ActionCommand =
  | { type: 'CreateAction'; actionId: number; projectId: number; fields: ActionFields; createdBy: number | null }
  /** `deleted`: PostHog's soft delete (true) or restore (false); undefined leaves it as it is. */
  | { type: 'UpdateAction'; changes: Partial<ActionFields>; deleted?: boolean };

/** The given fields that differ from the current ones (compared as sorted JSON). */
function changed(current: ActionFields, changes: Partial<ActionFields>): Partial<ActionFields> {
  const out: Partial<Record<keyof ActionFields, unknown>> = {};
  for (const key of Object.keys(changes) as (keyof ActionFields)[])
    if (changes[key] !== undefined && stableJson(changes[key]) !== stableJson(current[key])) out[key] = changes[key];
  return out as Partial<ActionFields>;
}

/**
 * An action: created once per id, changed field by field, soft-deleted and restored by PATCH as
 * PostHog does. A deleted action can still be patched (PostHog retrieves it by id).
 */
export const actionDecider: Decider<ActionCommand, ActionEvent, ActionState> = {
  events: actionEvents,
  initialState: () => ({ exists: false, deleted: false, actionId: 0, projectId: 0, fields: null, version: 0 }),
  evolve: (s, e) => {
    const version = s.version + 1;
    switch (e.type) {
      case 'ActionCreated':
        return { ...s, exists: true, actionId: e.data.actionId, projectId: e.data.projectId, fields: e.data.fields, version };
      case 'ActionUpdated':
        return { ...s, fields: { ...s.fields!, ...e.data.changes }, version };
      case 'ActionDeleted':
        return { ...s, deleted: true, version };
      case 'ActionRestored':
        return { ...s, deleted: false, version };
    }
  },
  decide: (c, s) => {
    if (c.type === 'CreateAction') {
      // Another create claimed this id first: withNextId moves on to the next one.
      if (s.exists) throw conflict(`action ${c.actionId} already exists`);
      const { type: _t, ...data } = c;
      return [{ type: 'ActionCreated', data }];
    }
    if (!s.exists) throw notFound();
    const ids = { actionId: s.actionId, projectId: s.projectId };
    const changes = changed(s.fields!, c.changes);
    const events: ActionEvent[] = Object.keys(changes).length ? [{ type: 'ActionUpdated', data: { ...ids, changes } }] : [];
    if (c.deleted === true && !s.deleted) events.push({ type: 'ActionDeleted', data: ids });
    if (c.deleted === false && s.deleted) events.push({ type: 'ActionRestored', data: ids });
    return events;
  },
};
