import type { SurveyFields } from '../../streams';

/**
 * The survey's internal targeting flag (compat §7): on for persons who have neither answered nor
 * dismissed the survey (in its current iteration), active only while the survey runs. posthog-js
 * shows a survey only when this flag is on, so one answer hides it on every device.
 */
export function internalFlagFilters(surveyId: string, fields: SurveyFields): Record<string, unknown> {
  const suffix = fields.iteration_count !== null && fields.iteration_count > 0 ? `/${fields.current_iteration ?? 1}` : '';
  const unset = (key: string) => ({ key: `${key}/${surveyId}${suffix}`, type: 'person', operator: 'is_not_set', value: 'is_not_set' });
  return { groups: [{ variant: null, rollout_percentage: 100, properties: [unset('$survey_dismissed'), unset('$survey_responded')] }] };
}

export const surveyRunning = (fields: SurveyFields) => fields.start_date !== null && fields.end_date === null;

export const internalFlagName = (surveyName: string) => `Targeting flag for survey ${surveyName}`;
