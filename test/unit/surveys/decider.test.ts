import { describe, it } from 'vitest';
import type { SurveyEvent, SurveyFields } from '../../../streams';
import { surveyDecider } from '../../../src/surveys/decider';
import { spec } from '../../support/decider-spec';

const surveyId = '0195d3a0-0000-7000-8000-000000000001';
const projectId = 1;
const fields: SurveyFields = {
  name: 'NPS',
  description: '',
  type: 'popover',
  schedule: null,
  linked_flag_id: null,
  questions: [{ type: 'open', question: 'Why?', id: 'q1' }],
  conditions: null,
  appearance: null,
  start_date: null,
  end_date: null,
  archived: false,
  responses_limit: null,
  iteration_count: null,
  iteration_frequency_days: null,
  current_iteration: null,
  current_iteration_start_date: null,
  enable_partial_responses: false,
};
const created: SurveyEvent = { type: 'SurveyCreated', data: { surveyId, projectId, fields, internalFlagKey: 'survey-targeting-abc-custom', targetingFlagKey: null, createdBy: 7 } };

describe('survey decider', () => {
  it('creates a survey once', () => {
    spec(surveyDecider).given([]).when({ type: 'CreateSurvey', surveyId, projectId, fields, internalFlagKey: 'survey-targeting-abc-custom', targetingFlagKey: null, createdBy: 7 }).then([created]);
    spec(surveyDecider).given([created]).when({ type: 'CreateSurvey', surveyId, projectId, fields, internalFlagKey: 'survey-targeting-abc-custom', targetingFlagKey: null, createdBy: 7 }).thenThrows('conflict');
  });

  it('records only the fields a PATCH changes, and nothing for a repeated one', () => {
    spec(surveyDecider)
      .given([created])
      .when({ type: 'UpdateSurvey', changes: { name: 'NPS', start_date: '2026-01-01T00:00:00.000Z' } })
      .then([{ type: 'SurveyUpdated', data: { surveyId, projectId, changes: { start_date: '2026-01-01T00:00:00.000Z' } } }]);
    const started: SurveyEvent = { type: 'SurveyUpdated', data: { surveyId, projectId, changes: { start_date: '2026-01-01T00:00:00.000Z' } } };
    spec(surveyDecider).given([created, started]).when({ type: 'UpdateSurvey', changes: { start_date: '2026-01-01T00:00:00.000Z' } }).thenNothing();
  });

  it('deletes once; a deleted or unknown survey is not found', () => {
    spec(surveyDecider).given([created]).when({ type: 'DeleteSurvey' }).then([{ type: 'SurveyDeleted', data: { surveyId, projectId } }]);
    const deleted: SurveyEvent = { type: 'SurveyDeleted', data: { surveyId, projectId } };
    spec(surveyDecider).given([created, deleted]).when({ type: 'DeleteSurvey' }).thenThrows('not_found');
    spec(surveyDecider).given([created, deleted]).when({ type: 'UpdateSurvey', changes: { name: 'x' } }).thenThrows('not_found');
    spec(surveyDecider).given([]).when({ type: 'UpdateSurvey', changes: { name: 'x' } }).thenThrows('not_found');
  });

  it('names a new targeting flag, or none, and records nothing when it is already so', () => {
    spec(surveyDecider)
      .given([created])
      .when({ type: 'SetTargetingFlag', targetingFlagKey: 'survey-targeting-0123456789' })
      .then([{ type: 'SurveyTargetingFlagChanged', data: { surveyId, projectId, targetingFlagKey: 'survey-targeting-0123456789' } }]);
    spec(surveyDecider).given([created]).when({ type: 'SetTargetingFlag', targetingFlagKey: null }).thenNothing();
  });
});
