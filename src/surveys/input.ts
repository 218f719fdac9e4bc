import { randomUUID } from 'node:crypto';
import type { SurveyFields } from '../../streams';
import { validationError } from '../errors';
import { bool, choice, defined, instant, integer, isObject, object, text, type Body } from './fields';

export const SURVEY_TYPES = ['popover', 'widget', 'button', 'email', 'full_screen', 'api', 'external_survey'] as const;
export const SCHEDULES = ['once', 'recurring', 'always'] as const;
const QUESTION_TYPES = ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] as const;
const RATING_SCALES = [2, 3, 5, 7, 10];
const BRANCHING = ['next_question', 'end', 'response_based', 'specific_question'];

/** compat §7: one question, checked per type; a missing id gets a uuid, as PostHog fills it on save. */
function question(q: unknown, i: number): Record<string, unknown> {
  const attr = 'questions';
  if (!isObject(q)) throw validationError(`Question ${i + 1} must be an object.`, attr);
  if (!QUESTION_TYPES.includes(q.type as never)) throw validationError(`Question ${i + 1}: unknown question type "${String(q.type)}".`, attr);
  if (typeof q.question !== 'string' || q.question.trim() === '') throw validationError(`Question ${i + 1}: the question text is required.`, attr);
  if (q.id !== undefined && (typeof q.id !== 'string' || q.id === '')) throw validationError(`Question ${i + 1}: id must be a non-empty string.`, attr);
  if (q.type === 'link' && (typeof q.link !== 'string' || !/^(https:\/\/|mailto:)/.test(q.link)))
    throw validationError(`Question ${i + 1}: link must be a URL starting with https:// or mailto:.`, attr);
  if (q.type === 'rating') {
    if (q.scale !== undefined && !RATING_SCALES.includes(q.scale as number)) throw validationError(`Question ${i + 1}: scale must be one of 2, 3, 5, 7, 10.`, attr);
    if (q.display !== undefined && q.display !== 'number' && q.display !== 'emoji') throw validationError(`Question ${i + 1}: display must be "number" or "emoji".`, attr);
  }
  if (q.type === 'single_choice' || q.type === 'multiple_choice') {
    const ok = Array.isArray(q.choices) && q.choices.length > 0 && q.choices.every((c) => typeof c === 'string' && c.trim() !== '');
    if (!ok) throw validationError(`Question ${i + 1}: choices must be a non-empty list of non-empty strings.`, attr);
  }
  if (q.branching !== undefined && q.branching !== null) {
    if (!isObject(q.branching) || !BRANCHING.includes(q.branching.type as string)) throw validationError(`Question ${i + 1}: unknown branching type.`, attr);
  }
  return { ...q, id: q.id ?? randomUUID() };
}

function questions(body: Body): Record<string, unknown>[] | undefined {
  const v = body.questions;
  if (v === undefined || v === null) return v === null ? [] : undefined;
  if (!Array.isArray(v)) throw validationError('Expected a list of questions.', 'questions', 'invalid');
  return v.map(question);
}

function fieldsOf(body: Body): Partial<SurveyFields> {
  return defined({
    name: text(body, 'name', { maxLength: 400 }) as string | undefined,
    description: text(body, 'description', { blank: true }) as string | undefined,
    type: choice(body, 'type', SURVEY_TYPES) as string | undefined,
    schedule: choice(body, 'schedule', SCHEDULES, { nullable: true }),
    linked_flag_id: integer(body, 'linked_flag_id'),
    questions: questions(body),
    conditions: object(body, 'conditions', { nullable: true }),
    appearance: object(body, 'appearance', { nullable: true }),
    start_date: instant(body, 'start_date'),
    end_date: instant(body, 'end_date'),
    archived: bool(body, 'archived'),
    responses_limit: integer(body, 'responses_limit', { min: 0 }),
    iteration_count: integer(body, 'iteration_count', { min: 0 }),
    iteration_frequency_days: integer(body, 'iteration_frequency_days', { min: 0 }),
    current_iteration: integer(body, 'current_iteration', { min: 0 }),
    current_iteration_start_date: instant(body, 'current_iteration_start_date'),
    enable_partial_responses: bool(body, 'enable_partial_responses'),
  });
}

/** Rules over several fields, checked on the survey as it would be after the write. */
export function checkSurvey(s: SurveyFields, linkedFlagVariants: string[] | null): void {
  const variant = s.conditions?.linkedFlagVariant;
  if (variant !== undefined && variant !== null && variant !== '' && variant !== 'any') {
    if (s.linked_flag_id === null) throw validationError('linkedFlagVariant requires a linked feature flag.', 'conditions');
    if (!linkedFlagVariants?.includes(String(variant))) throw validationError(`Feature flag has no variant "${String(variant)}".`, 'conditions');
  }
  if (s.appearance?.shuffleQuestions === true && s.questions.some((q) => isObject(q.branching)))
    throw validationError('Shuffling questions is not allowed when branching is used.', 'appearance');
}

const DEFAULTS: Omit<SurveyFields, 'name' | 'type'> = {
  description: '',
  schedule: null,
  linked_flag_id: null,
  questions: [],
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

export function parseSurveyCreate(body: Body): SurveyFields {
  text(body, 'name', { required: true });
  choice(body, 'type', SURVEY_TYPES, { required: true });
  return { ...DEFAULTS, ...fieldsOf(body) } as SurveyFields;
}

export const parseSurveyUpdate = (body: Body): Partial<SurveyFields> => fieldsOf(body);

export interface TargetingInput {
  /** New filters for the user targeting flag (undefined: unchanged). */
  filters: Record<string, unknown> | undefined;
  remove: boolean;
}

/**
 * `targeting_flag_filters` and `remove_targeting_flag` (compat §7). Filters that release to
 * everyone (a group without properties at 100% or no rollout) are refused, as PostHog does.
 */
export function parseTargeting(body: Body): TargetingInput {
  const attr = 'targeting_flag_filters';
  const remove = bool(body, 'remove_targeting_flag') ?? false;
  const raw = body[attr];
  if (raw === undefined || raw === null) return { filters: undefined, remove };
  if (!isObject(raw) || !Array.isArray(raw.groups)) throw validationError('Expected an object with a list of groups.', attr, 'invalid');
  for (const g of raw.groups) {
    const everyone = isObject(g) && (!Array.isArray(g.properties) || g.properties.length === 0) && (g.rollout_percentage === 100 || g.rollout_percentage === null || g.rollout_percentage === undefined);
    if (everyone) throw validationError('Invalid operation: User targeting rolls out to everyone. If you want all users to see this survey, remove the targeting.', attr);
  }
  return { filters: raw, remove };
}
