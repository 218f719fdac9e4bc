import { earlyAccessFeatureEvents, type EarlyAccessFeatureEvent, type EarlyAccessFields } from '../../streams';
import { conflict, notFound } from '../errors';
import type { Decider } from '../runtime/decider';

export interface EarlyAccessState {
  exists: boolean;
  /** Deleted, or abandoned because its flag could not be created: no command applies any more. */
  gone: boolean;
  featureId: string;
  projectId: number;
  flagKey: string;
  fields: EarlyAccessFields | null;
  version: number;
}

export type EarlyAccessCommand =
  | { type: 'CreateEarlyAccessFeature'; featureId: string; projectId: number; fields: EarlyAccessFields; flagKey: string; flagCreated: boolean; createdBy: number | null }
  | { type: 'UpdateEarlyAccessFeature'; changes: Partial<EarlyAccessFields> }
  | { type: 'AbandonEarlyAccessFeature'; reason: string }
  | { type: 'DeleteEarlyAccessFeature' };

function changed(current: EarlyAccessFields, changes: Partial<EarlyAccessFields>): Partial<EarlyAccessFields> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes))
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k as keyof EarlyAccessFields])) out[k] = v;
  return out as Partial<EarlyAccessFields>;
}

/** An early access feature: created once per id, changed field by field, then abandoned or deleted once. */
export const earlyAccessDecider: Decider<EarlyAccessCommand, EarlyAccessFeatureEvent, EarlyAccessState> = {
  events: earlyAccessFeatureEvents,
  initialState: () => ({ exists: false, gone: false, featureId: '', projectId: 0, flagKey: '', fields: null, version: 0 }),
  evolve: (s, e) => {
    const version = s.version + 1;
    switch (e.type) {
      case 'EarlyAccessFeatureCreated':
        return { ...s, exists: true, featureId: e.data.featureId, projectId: e.data.projectId, flagKey: e.data.flagKey, fields: e.data.fields, version };
      case 'EarlyAccessFeatureUpdated':
        return { ...s, fields: { ...s.fields!, ...e.data.changes }, version };
      case 'EarlyAccessFeatureAbandoned':
      case 'EarlyAccessFeatureDeleted':
        return { ...s, gone: true, version };
    }
  },
  decide: (c, s) => {
    if (c.type === 'CreateEarlyAccessFeature') {
      if (s.exists) throw conflict(`early access feature ${c.featureId} already exists`);
      const { type: _t, ...data } = c;
      return [{ type: 'EarlyAccessFeatureCreated', data }];
    }
    if (!s.exists || s.gone) throw notFound();
    const ids = { featureId: s.featureId, projectId: s.projectId };
    switch (c.type) {
      case 'AbandonEarlyAccessFeature':
        return [{ type: 'EarlyAccessFeatureAbandoned', data: { ...ids, reason: c.reason } }];
      case 'DeleteEarlyAccessFeature':
        return [{ type: 'EarlyAccessFeatureDeleted', data: ids }];
      case 'UpdateEarlyAccessFeature': {
        const changes = changed(s.fields!, c.changes);
        return Object.keys(changes).length ? [{ type: 'EarlyAccessFeatureUpdated', data: { ...ids, changes } }] : [];
      }
    }
  },
};
