import { surveyEvents, type SurveyEvent, type SurveyFields } from '../../streams';
import { conflict, notFound } from '../errors';
import type { Decider } from '../runtime/decider';

export interface SurveyState {
  exists: boolean;
  deleted: boolean;
  surveyId: string;
  projectId: number;
  fields: SurveyFields | null;
  targetingFlagKey: string | null;
  /** Events in the stream: the read model's version once it has them all. */
  version: number;
}

export type SurveyCommand =
  | { type: 'CreateSurvey'; surveyId: string; projectId: number; fields: SurveyFields; internalFlagKey: string; targetingFlagKey: string | null; createdBy: number | null }
  | { type: 'UpdateSurvey'; changes: Partial<SurveyFields> }
  | { type: 'SetTargetingFlag'; targetingFlagKey: string | null }
  | { type: 'DeleteSurvey' };

/** Only the fields whose value a PATCH actually changes (JSON equality), so a repeated PATCH records nothing. */
function changed(current: SurveyFields, changes: Partial<SurveyFields>): Partial<SurveyFields> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes))
    if (v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k as keyof SurveyFields])) out[k] = v;
  return out as Partial<SurveyFields>;
}

/** A survey: created once per id, changed field by field, deleted once. */
export const surveyDecider: Decider<SurveyCommand, SurveyEvent, SurveyState> = {
  events: surveyEvents,
  initialState: () => ({ exists: false, deleted: false, surveyId: '', projectId: 0, fields: null, targetingFlagKey: null, version: 0 }),
  evolve: (s, e) => {
    const version = s.version + 1;
    switch (e.type) {
      case 'SurveyCreated':
        return { ...s, exists: true, surveyId: e.data.surveyId, projectId: e.data.projectId, fields: e.data.fields, targetingFlagKey: e.data.targetingFlagKey, version };
      case 'SurveyUpdated':
        return { ...s, fields: { ...s.fields!, ...e.data.changes }, version };
      case 'SurveyTargetingFlagChanged':
        return { ...s, targetingFlagKey: e.data.targetingFlagKey, version };
      case 'SurveyDeleted':
        return { ...s, deleted: true, version };
    }
  },
  decide: (c, s) => {
    if (c.type === 'CreateSurvey') {
      if (s.exists) throw conflict(`survey ${c.surveyId} already exists`);
      const { type: _t, ...data } = c;
      return [{ type: 'SurveyCreated', data }];
    }
    if (!s.exists || s.deleted) throw notFound();
    const ids = { surveyId: s.surveyId, projectId: s.projectId };
    if (c.type === 'DeleteSurvey') return [{ type: 'SurveyDeleted', data: ids }];
    if (c.type === 'SetTargetingFlag')
      return c.targetingFlagKey === s.targetingFlagKey ? [] : [{ type: 'SurveyTargetingFlagChanged', data: { ...ids, targetingFlagKey: c.targetingFlagKey } }];
    const changes = changed(s.fields!, c.changes);
    return Object.keys(changes).length ? [{ type: 'SurveyUpdated', data: { ...ids, changes } }] : [];
  },
};
