import type { SurveyFields } from '../../streams';

/**
 * The survey's internal targeting flag (compat §7): on for persons who have neither answered nor
 * dismissed the survey (in its current iteration) and, with `seenSurveyWaitPeriodInDays`, have not
 * been shown a survey within that many days; active only while the survey runs. posthog-js
 * shows a survey only when this flag is on, so one answer hides it on every device.
 */
export function internalFlagFilters(surveyId: string, fields: SurveyFields): Record<string, unknown> {
  const suffix = fields.iteration_count !== null && fields.iteration_count > 0 ? `/${fields.current_iteration ?? 1}` : '';
  const unset = (key: string) => ({ key: `${key}/${surveyId}${suffix}`, type: 'person', operator: 'is_not_set', value: 'is_not_set' });
  const base = [unset('$survey_dismissed'), unset('$survey_responded')];
  const wait = fields.conditions?.seenSurveyWaitPeriodInDays;
  if (typeof wait !== 'number' || !Number.isInteger(wait) || wait <= 0) return { groups: [{ variant: null, rollout_percentage: 100, properties: base }] };
  // With a wait period: never shown any survey, or last shown one more than N days ago.
  const lastSeen = { key: '$survey_last_seen_date', type: 'person' };
  return {
    groups: [
      { variant: null, rollout_percentage: 100, properties: [...base, { ...lastSeen, operator: 'is_not_set', value: 'is_not_set' }] },
      { variant: null, rollout_percentage: 100, properties: [...base, { ...lastSeen, operator: 'is_date_before', value: `-${wait}d` }] },
    ],
  };
}

export const surveyRunning = (fields: SurveyFields) => fields.start_date !== null && fields.end_date === null;

export const internalFlagName = (surveyName: string) => `Targeting flag for survey ${surveyName}`;
