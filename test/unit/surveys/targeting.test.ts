import { describe, expect, it } from 'vitest';
import type { SurveyFields } from '../../../streams';
import { internalFlagFilters } from '../../../src/surveys/targeting';

const fields = (over: Partial<SurveyFields>): SurveyFields => ({
  name: 'S', description: '', type: 'popover', schedule: null, linked_flag_id: null, questions: [], conditions: null, appearance: null,
  start_date: null, end_date: null, archived: false, responses_limit: null, iteration_count: null, iteration_frequency_days: null,
  current_iteration: null, current_iteration_start_date: null, enable_partial_responses: false, ...over,
});

describe('survey internal targeting flag filters', () => {
  it('keys on the survey, and on the iteration when the survey repeats', () => {
    const keys = (f: Record<string, unknown>) => ((f.groups as { properties: { key: string }[] }[])[0].properties).map((p) => p.key);
    expect(keys(internalFlagFilters('abc', fields({})))).toEqual(['$survey_dismissed/abc', '$survey_responded/abc']);
    expect(keys(internalFlagFilters('abc', fields({ iteration_count: 3, current_iteration: 2 })))).toEqual(['$survey_dismissed/abc/2', '$survey_responded/abc/2']);
    expect(keys(internalFlagFilters('abc', fields({ iteration_count: 3 })))).toEqual(['$survey_dismissed/abc/1', '$survey_responded/abc/1']);
    // 0 repeats is not iterating (PostHog: `iteration_count > 0`), even with an iteration number set.
    expect(keys(internalFlagFilters('abc', fields({ iteration_count: 0, current_iteration: 1 })))).toEqual(['$survey_dismissed/abc', '$survey_responded/abc']);
  });

  it('with a wait period, adds "never seen a survey" or "last seen more than N days ago"', () => {
    const f = internalFlagFilters('abc', fields({ conditions: { seenSurveyWaitPeriodInDays: 7 } }));
    const groups = f.groups as { properties: { key: string; operator: string; value: unknown }[] }[];
    expect(groups).toHaveLength(2);
    expect(groups[0].properties[2]).toMatchObject({ key: '$survey_last_seen_date', operator: 'is_not_set' });
    expect(groups[1].properties[2]).toMatchObject({ key: '$survey_last_seen_date', operator: 'is_date_before', value: '-7d' });
  });
});
