import { experimentSavedMetricEvents, type ExperimentSavedMetricEvent, type SavedMetricFields } from '../../../streams';
import { stableJson } from '../../../projections/json';
import { conflict, notFound } from '../../errors';
import type { Decider } from '../../runtime/decider';

export interface SavedMetricState {
  exists: boolean;
  deleted: boolean;
  savedMetricId: number;
  projectId: number;
  fields: SavedMetricFields | null;
  version: number;
}

export type SavedMetricCommand =
  | { type: 'CreateSavedMetric'; savedMetricId: number; projectId: number; fields: SavedMetricFields; createdBy: number | null }
  | { type: 'UpdateSavedMetric'; changes: Partial<SavedMetricFields> }
  | { type: 'DeleteSavedMetric' };

/** The given fields that differ from the current ones (compared as sorted JSON). */
function changed(current: SavedMetricFields, changes: Partial<SavedMetricFields>): Partial<SavedMetricFields> {
  const out: Partial<Record<keyof SavedMetricFields, unknown>> = {};
  for (const key of Object.keys(changes) as (keyof SavedMetricFields)[])
    if (changes[key] !== undefined && stableJson(changes[key]) !== stableJson(current[key])) out[key] = changes[key];
  return out as Partial<SavedMetricFields>;
}

/** A saved metric: created once per id, changed field by field, deleted once. */
export const savedMetricDecider: Decider<SavedMetricCommand, ExperimentSavedMetricEvent, SavedMetricState> = {
  events: experimentSavedMetricEvents,
  initialState: () => ({ exists: false, deleted: false, savedMetricId: 0, projectId: 0, fields: null, version: 0 }),
  evolve: (s, e) => {
    const version = s.version + 1;
    switch (e.type) {
      case 'ExperimentSavedMetricCreated':
        return { ...s, exists: true, savedMetricId: e.data.savedMetricId, projectId: e.data.projectId, fields: e.data.fields, version };
      case 'ExperimentSavedMetricUpdated':
        return { ...s, fields: { ...s.fields!, ...e.data.changes }, version };
      case 'ExperimentSavedMetricDeleted':
        return { ...s, deleted: true, version };
    }
  },
  decide: (c, s) => {
    if (c.type === 'CreateSavedMetric') {
      // Another create claimed this id first: withNextId moves on to the next one.
      if (s.exists) throw conflict(`saved metric ${c.savedMetricId} already exists`);
      const { type: _t, ...data } = c;
      return [{ type: 'ExperimentSavedMetricCreated', data }];
    }
    if (!s.exists || s.deleted) throw notFound();
    const ids = { savedMetricId: s.savedMetricId, projectId: s.projectId };
    if (c.type === 'DeleteSavedMetric') return [{ type: 'ExperimentSavedMetricDeleted', data: ids }];
    const changes = changed(s.fields!, c.changes);
    return Object.keys(changes).length ? [{ type: 'ExperimentSavedMetricUpdated', data: { ...ids, changes } }] : [];
  },
};
