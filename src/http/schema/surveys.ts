import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SurveyFields } from '../../../streams';
import { BRANCHING, QUESTION_TYPES, RATING_SCALES, SCHEDULES, SURVEY_TYPES, type SurveyCreate, type SurveyUpdate, type TargetingInput } from '../../surveys/input';
import { jsonObject, JsonObject } from './common';
import { bool, choice, drf, instant, integer, isObject, jsonObjectField, nullableChoice, refuse, text } from './drf';

/** compat §7: one question, checked per type; a missing id gets a uuid, as PostHog fills it on save. */
function question(q: unknown, i: number): Record<string, unknown> {
  const n = i + 1;
  if (!isObject(q)) return refuse(`Question ${n} must be an object.`);
  if (!QUESTION_TYPES.includes(q.type as never)) refuse(`Question ${n}: unknown question type "${String(q.type)}".`);
  if (typeof q.question !== 'string' || q.question.trim() === '') refuse(`Question ${n}: the question text is required.`);
  if (q.id !== undefined && (typeof q.id !== 'string' || q.id === '')) refuse(`Question ${n}: id must be a non-empty string.`);
  if (q.type === 'link' && (typeof q.link !== 'string' || !/^(https:\/\/|mailto:)/.test(q.link))) refuse(`Question ${n}: link must be a URL starting with https:// or mailto:.`);
  if (q.type === 'rating') {
    if (q.scale !== undefined && !RATING_SCALES.includes(q.scale as number)) refuse(`Question ${n}: scale must be one of 2, 3, 5, 7, 10.`);
    if (q.display !== undefined && q.display !== 'number' && q.display !== 'emoji') refuse(`Question ${n}: display must be "number" or "emoji".`);
  }
  if (q.type === 'single_choice' || q.type === 'multiple_choice') {
    const ok = Array.isArray(q.choices) && q.choices.length > 0 && q.choices.every((c) => typeof c === 'string' && c.trim() !== '');
    if (!ok) refuse(`Question ${n}: choices must be a non-empty list of non-empty strings.`);
  }
  if (q.branching !== undefined && q.branching !== null && (!isObject(q.branching) || !BRANCHING.includes(q.branching.type as string))) refuse(`Question ${n}: unknown branching type.`);
  return { ...q, id: q.id ?? randomUUID() };
}

const Question = z.looseObject({
  id: z.string().optional(),
  type: z.enum(QUESTION_TYPES),
  question: z.string(),
  link: z.string().optional(),
  scale: z.number().optional(),
  display: z.enum(['number', 'emoji']).optional(),
  choices: z.array(z.string()).optional(),
  branching: z.looseObject({ type: z.enum(BRANCHING) }).nullable().optional(),
});

/**
 * `targeting_flag_filters` and `remove_targeting_flag` (compat §7). Filters that release to
 * everyone (a group without properties at 100% or no rollout) are refused, as PostHog does.
 */
const targetingFilters = drf(
  JsonObject.nullable(),
  (raw): Record<string, unknown> | undefined => {
    if (raw === undefined || raw === null) return undefined;
    if (!isObject(raw) || !Array.isArray(raw.groups)) return refuse('Expected an object with a list of groups.', 'invalid');
    for (const g of raw.groups) {
      const everyone = isObject(g) && (!Array.isArray(g.properties) || g.properties.length === 0) && (g.rollout_percentage === 100 || g.rollout_percentage === null || g.rollout_percentage === undefined);
      if (everyone) refuse('Invalid operation: User targeting rolls out to everyone. If you want all users to see this survey, remove the targeting.');
    }
    return raw;
  },
  'Who sees the survey: flag filters (`groups`); null removes them.',
).optional();

// In PostHog's order of checks: the required name and type first.
const fields = {
  name: text({ maxLength: 400 }),
  type: choice(SURVEY_TYPES),
  description: text({ blank: true }).optional(),
  schedule: nullableChoice(SCHEDULES).optional(),
  linked_flag_id: integer().optional(),
  questions: drf(z.array(Question).nullable(), (raw): Record<string, unknown>[] => {
    if (raw === null || raw === undefined) return [];
    return Array.isArray(raw) ? raw.map(question) : refuse('Expected a list of questions.', 'invalid');
  }).optional(),
  conditions: jsonObjectField().optional(),
  appearance: jsonObjectField().optional(),
  start_date: instant().optional(),
  end_date: instant().optional(),
  archived: bool().optional(),
  responses_limit: integer({ min: 0 }).optional(),
  iteration_count: integer({ min: 0 }).optional(),
  iteration_frequency_days: integer({ min: 0 }).optional(),
  current_iteration: integer({ min: 0 }).optional(),
  current_iteration_start_date: instant().optional(),
  enable_partial_responses: bool().optional(),
  remove_targeting_flag: bool().optional(),
  targeting_flag_filters: targetingFilters,
};

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

const OWN = new Set<string>(['name', 'type', ...Object.keys(DEFAULTS)]);

/** The survey's own fields of a read body (only those given) and its targeting. */
function split(body: Partial<SurveyFields> & { remove_targeting_flag?: boolean; targeting_flag_filters?: Record<string, unknown> }) {
  const { remove_targeting_flag, targeting_flag_filters, ...rest } = body;
  const given: Partial<SurveyFields> = Object.fromEntries(Object.entries(rest).filter(([key, value]) => OWN.has(key) && value !== undefined));
  const targeting: TargetingInput = { filters: targeting_flag_filters, remove: remove_targeting_flag ?? false };
  return { given, targeting };
}

export const CreateSurveyBody = jsonObject(fields)
  .transform((body): SurveyCreate => {
    const { given, targeting } = split(body);
    return { fields: { ...DEFAULTS, ...given, name: body.name, type: body.type }, targeting };
  })
  .meta({ examples: [{ name: 'NPS', type: 'popover', questions: [{ type: 'rating', question: 'How likely are you to recommend us?', scale: 10 }] }] });

export const UpdateSurveyBody = jsonObject({ ...fields, name: fields.name.optional(), type: fields.type.optional() })
  .transform((body): SurveyUpdate => {
    const { given, targeting } = split(body);
    return { changes: given, targeting };
  })
  .meta({ examples: [{ archived: true }] });
