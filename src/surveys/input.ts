import type { SurveyFields } from '../../streams';
import { validationError } from '../errors';

export const SURVEY_TYPES = ['popover', 'widget', 'button', 'email', 'full_screen', 'api', 'external_survey'] as const;
export const SCHEDULES = ['once', 'recurring', 'always'] as const;
export const QUESTION_TYPES = ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] as const;
export const RATING_SCALES = [2, 3, 5, 7, 10];
export const BRANCHING = ['next_question', 'end', 'response_based', 'specific_question'];

export interface TargetingInput {
  /** New filters for the user targeting flag (undefined: unchanged). */
  filters: Record<string, unknown> | undefined;
  remove: boolean;
}

export interface SurveyCreate {
  fields: SurveyFields;
  targeting: TargetingInput;
}

export interface SurveyUpdate {
  changes: Partial<SurveyFields>;
  targeting: TargetingInput;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rules over several fields, checked on the survey as it would be after the write (with the linked flag's variants). */
export function checkSurvey(s: SurveyFields, linkedFlagVariants: string[] | null): void {
  const variant = s.conditions?.linkedFlagVariant;
  if (variant !== undefined && variant !== null && variant !== '' && variant !== 'any') {
    if (s.linked_flag_id === null) throw validationError('linkedFlagVariant requires a linked feature flag.', 'conditions');
    if (!linkedFlagVariants?.includes(String(variant))) throw validationError(`Feature flag has no variant "${String(variant)}".`, 'conditions');
  }
  if (s.appearance?.shuffleQuestions === true && s.questions.some((q) => isObject(q.branching)))
    throw validationError('Shuffling questions is not allowed when branching is used.', 'appearance');
}
