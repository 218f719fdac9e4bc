import type { ActionStep } from '../../streams';
import { validationError } from '../errors';

/**
 * Reading an action's steps as PostHog's ActionStepJSONSerializer does, with its messages: each
 * step an object whose unknown keys are dropped, text fields strings (not blank) or null, the
 * matchings one of contains/regex/exact, properties a list of objects. Stored as ActionStepJSON:
 * every key present, `url_matching` "contains" when not given. Refusals name the step.
 */
const MATCHINGS = ['contains', 'regex', 'exact'] as const;
const TEXT_KEYS = ['event', 'selector', 'tag_name', 'text', 'href', 'url'] as const;
const MATCHING_KEYS = ['text_matching', 'href_matching', 'url_matching'] as const;

const typeName = (v: unknown) => (v === null ? 'NoneType' : Array.isArray(v) ? 'list' : typeof v === 'string' ? 'str' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : typeof v === 'boolean' ? 'bool' : 'dict');
const fail = (index: number, key: string | null, message: string, code: string): never => {
  throw validationError(`Step ${index + 1}${key ? ` ${key}` : ''}: ${message}`, 'steps', code);
};

function readStep(raw: unknown, i: number): ActionStep {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(i, null, `Invalid data. Expected a dictionary, but got ${typeName(raw)}.`, 'invalid');
  const given = raw as Record<string, unknown>;
  const step: ActionStep = {
    event: null,
    properties: null,
    selector: null,
    tag_name: null,
    text: null,
    text_matching: null,
    href: null,
    href_matching: null,
    url: null,
    url_matching: 'contains',
  };
  for (const key of TEXT_KEYS) {
    const v = given[key];
    if (v === undefined || v === null) {
      step[key] = null;
      continue;
    }
    if (typeof v !== 'string' && typeof v !== 'number') return fail(i, key, 'Not a valid string.', 'invalid');
    const s = String(v);
    if (s.includes('\0')) return fail(i, key, 'Null characters are not allowed.', 'null_characters_not_allowed');
    // DRF's CharField refuses a blank string (the trimmed one where it trims: selector and url).
    if ((key === 'selector' || key === 'url' ? s.trim() : s) === '') return fail(i, key, 'This field may not be blank.', 'blank');
    step[key] = key === 'selector' || key === 'url' ? s.trim() : s;
  }
  for (const key of MATCHING_KEYS) {
    const v = given[key];
    if (v === undefined) continue;
    if (v === null) {
      step[key] = null;
      continue;
    }
    if (typeof v !== 'string' || !(MATCHINGS as readonly string[]).includes(v)) return fail(i, key, `"${String(v)}" is not a valid choice.`, 'invalid_choice');
    step[key] = v as ActionStep['url_matching'];
  }
  const properties = given.properties;
  if (properties !== undefined && properties !== null) {
    if (!Array.isArray(properties)) return fail(i, 'properties', `Expected a list of items but got type "${typeName(properties)}".`, 'not_a_list');
    for (const p of properties) {
      if (typeof p !== 'object' || p === null || Array.isArray(p)) return fail(i, 'properties', `Expected a dictionary of items but got type "${typeName(p)}".`, 'not_a_dict');
    }
    step.properties = properties as Record<string, unknown>[];
  }
  return step;
}

/** The `steps` field: a list of steps (null or absent is no steps, as PostHog stores it). */
export function readSteps(raw: unknown): ActionStep[] {
  if (raw === null) throw validationError('This field may not be null.', 'steps', 'null');
  if (!Array.isArray(raw)) throw validationError(`Expected a list of items but got type "${typeName(raw)}".`, 'steps', 'not_a_list');
  return raw.map(readStep);
}
