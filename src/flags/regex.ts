import { RE2JS } from 're2js';

/**
 * Safe regex matching for the `regex` / `not_regex` operators.
 *
 * The rule: patterns run on RE2 (re2js), whose matching time is linear in the input, so nested
 * quantifiers such as `(a+)+` or stacked `.*` cannot backtrack catastrophically. RE2 syntax is
 * also what PostHog's flags service accepts (Rust `regex`), minus lookaround and backreferences,
 * which RE2 rejects. On top of that, as a plain cost bound:
 *   - patterns longer than MAX_PATTERN_LENGTH are refused;
 *   - values longer than MAX_SUBJECT_LENGTH are not tested.
 * A refused, unparsable or untested case is "no verdict": both `regex` and `not_regex` then fail
 * to match, like an invalid pattern on the flags service.
 */
export const MAX_PATTERN_LENGTH = 1_000;
export const MAX_SUBJECT_LENGTH = 10_000;

const CACHE_LIMIT = 500;
// Flags are evaluated for every request with the same few patterns; compiling once matters.
const compiled = new Map<string, RE2JS | null>();

function compile(pattern: string): RE2JS | null {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  let result: RE2JS | null;
  try {
    result = RE2JS.compile(pattern);
  } catch {
    result = null;
  }
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(pattern, result);
  return result;
}

/** true/false when the pattern was tested, null when it was refused or invalid. */
export function regexSearch(pattern: string, subject: string): boolean | null {
  if (pattern.length > MAX_PATTERN_LENGTH || subject.length > MAX_SUBJECT_LENGTH) return null;
  const re = compile(pattern);
  if (re === null) return null;
  return re.matcher(subject).find();
}
