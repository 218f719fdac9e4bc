import type { FeatureFlagRow } from '../../projections/feature-flags-queries';
import type { SurveyRow } from '../../projections/surveys-queries';

type FlagLookup = (projectId: number, id: number) => Promise<FeatureFlagRow | undefined>;
type FlagByKey = (projectId: number, key: string) => Promise<FeatureFlagRow | undefined>;

const minimalFlag = (f: FeatureFlagRow | undefined) =>
  f && !f.deleted ? { id: f.id, team_id: f.project_id, key: f.key, name: f.name, filters: f.filters, deleted: f.deleted, active: f.active, ensure_experience_continuity: f.ensure_experience_continuity } : null;

const linkedFlag = async (s: SurveyRow, flag: FlagLookup) => (s.fields.linked_flag_id === null ? undefined : flag(s.project_id, s.fields.linked_flag_id));

const internalFlag = async (s: SurveyRow, byKey: FlagByKey) => minimalFlag(await byKey(s.project_id, s.internal_flag_key));
const targetingFlag = async (s: SurveyRow, byKey: FlagByKey) => (s.targeting_flag_key === null ? null : minimalFlag(await byKey(s.project_id, s.targeting_flag_key)));

/** PostHog's SurveySerializer shape. */
export async function surveyBody(s: SurveyRow, flag: FlagLookup, byKey: FlagByKey, createdBy: unknown) {
  const f = s.fields;
  const linked = minimalFlag(await linkedFlag(s, flag));
  const internal = await internalFlag(s, byKey);
  const targeting = await targetingFlag(s, byKey);
  return {
    id: s.id,
    name: f.name,
    description: f.description,
    type: f.type,
    schedule: f.schedule,
    linked_flag: linked,
    linked_flag_id: f.linked_flag_id,
    linked_insight_id: null,
    targeting_flag: targeting,
    internal_targeting_flag: internal,
    questions: f.questions,
    conditions: f.conditions,
    appearance: f.appearance,
    created_at: s.created_at,
    created_by: createdBy,
    start_date: f.start_date,
    end_date: f.end_date,
    archived: f.archived,
    responses_limit: f.responses_limit,
    feature_flag_keys: [
      { key: 'linked_flag_key', value: linked?.key ?? null },
      { key: 'targeting_flag_key', value: targeting?.key ?? null },
      { key: 'internal_targeting_flag_key', value: internal?.key ?? null },
    ],
    iteration_count: f.iteration_count,
    iteration_frequency_days: f.iteration_frequency_days,
    iteration_start_dates: [],
    current_iteration: f.current_iteration,
    current_iteration_start_date: f.current_iteration_start_date,
    response_sampling_start_date: null,
    response_sampling_interval_type: null,
    response_sampling_interval: null,
    response_sampling_limit: null,
    response_sampling_daily_limits: null,
    enable_partial_responses: f.enable_partial_responses,
    responses_count: s.responses_count,
  };
}

/** The public Survey posthog-js reads (compat §7); `description` is left out, as PostHog does. */
export async function publicSurveyBody(s: SurveyRow, flag: FlagLookup, byKey: FlagByKey) {
  const f = s.fields;
  const linked = await linkedFlag(s, flag);
  const targeting = await targetingFlag(s, byKey);
  const internal = await internalFlag(s, byKey);
  return {
    id: s.id,
    name: f.name,
    type: f.type,
    linked_flag_key: linked && !linked.deleted ? linked.key : null,
    targeting_flag_key: targeting?.key ?? null,
    internal_targeting_flag_key: internal?.key ?? null,
    questions: f.questions,
    conditions: f.conditions,
    appearance: f.appearance,
    start_date: f.start_date,
    end_date: f.end_date,
    current_iteration: f.current_iteration,
    current_iteration_start_date: f.current_iteration_start_date,
    schedule: f.schedule,
    enable_partial_responses: f.enable_partial_responses,
  };
}
