import { RE2JS } from 're2js';
import { backtrackSearch, compileBacktracking, type Program } from './backtrack';

/**
 * Safe regex matching for the `regex` / `not_regex` operators.
 *
 * PostHog's flags service compiles the filter value with fancy-regex (backtrack limit 10,000):
 * plain patterns run on Rust's linear `regex` engine, and lookaround or backreferences on a
 * backtracking VM that gives up (an error, so no match) past the limit. The same split here:
 *   - patterns RE2 (re2js) accepts run on it, in time linear in the input, so nested quantifiers
 *     such as `(a+)+` cannot backtrack catastrophically;
 *   - the others (lookahead, lookbehind, backreferences, atomic groups) run on the small
 *     backtracking engine in ./backtrack, stopped after BACKTRACK_LIMIT backtracks and MAX_STEPS
 *     steps, so they are bounded too; a pattern neither engine accepts is invalid.
 * As a plain cost bound on both: patterns longer than MAX_PATTERN_LENGTH are refused and values
 * longer than MAX_SUBJECT_LENGTH are not tested.
 * A refused, invalid, untested or abandoned case is "no verdict": both `regex` and `not_regex`
 * then fail to match, as on the flags service (whose property match error counts as no match).
 */
export const MAX_PATTERN_LENGTH = 1_000;
export const MAX_SUBJECT_LENGTH = 10_000;

const CACHE_LIMIT = 500;
// Flags are evaluated for every request with the same few patterns; compiling once matters.
const compiled = new Map<string, RE2JS | Program | null>();

function compile(pattern: string): RE2JS | Program | null {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  let result: RE2JS | Program | null;
  try {
    result = RE2JS.compile(pattern);
  } catch {
    try {
      result = compileBacktracking(pattern);
    } catch {
      result = null;
    }
  }
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(pattern, result);
  return result;
}

/** true/false when the pattern was tested, null when it was refused, invalid or gave up. */
export function regexSearch(pattern: string, subject: string): boolean | null {
  if (pattern.length > MAX_PATTERN_LENGTH || subject.length > MAX_SUBJECT_LENGTH) return null;
  const re = compile(pattern);
  if (re === null) return null;
  if (re instanceof RE2JS) return re.matcher(subject).find();
  return backtrackSearch(re, subject).found;
}
