import { RE2JS } from 're2js';
import { BACKTRACK_LIMIT, MAX_STEPS, PatternError, backtrackSearch, compileBacktracking, type Program } from './backtrack';
import { REQUEST_REGEX_MS, type RegexBudget } from './regex-budget';
import { CACHE_MIN_COST, cachedVerdict, keepVerdict } from './regex-verdicts';

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
 *
 * "Linear" still means program size × subject length: re2js answers `find` on its NFA (or a
 * bit-state backtracker), which visits each instruction at most once per character, and counted
 * repetition multiplies the program (`((a{1,10}){1,10}){1,10}` is 2,221 instructions, a third of a
 * second over 10,000 characters). Hence two more bounds (issue 21):
 *   - a program of more than MAX_PROGRAM_SIZE instructions (in the engine that would run it) is
 *     refused when a flag is saved (`regexProblem`) and, stored earlier, is an invalid pattern here;
 *   - with a request's RegexBudget, each search is charged to it: RE2 its worst case, program size ×
 *     (length + 1), before it runs; the backtracking machine its steps (plus the subject's length,
 *     read in first), stopped when the budget runs out. A search the budget cannot pay for throws
 *     RegexBudgetExceeded, which fails the flag (evaluate.ts leaves it out and reports
 *     `errorsWhileComputingFlags`): unlike a pattern's own limit, that is no property of the
 *     pattern and the value, so it must not read as "no match".
 * Compiling a pattern the cache does not hold is charged too. Expensive verdicts are kept across
 * requests (regex-verdicts.ts).
 */
export const MAX_PATTERN_LENGTH = 1_000;
export const MAX_SUBJECT_LENGTH = 10_000;
/**
 * Largest program run, in instructions of either engine. A pattern of MAX_PATTERN_LENGTH literal
 * characters compiles to about as many instructions, so only counted repetition gets past this.
 */
export const MAX_PROGRAM_SIZE = 2_000;

type Compiled =
  | { engine: 're2'; re: RE2JS; size: number }
  | { engine: 'backtrack'; program: Program; size: number }
  | { engine: null; tooComplex: string | null };

const CACHE_LIMIT = 500;
// Flags are evaluated for every request with the same few patterns; compiling once matters.
const compiled = new Map<string, Compiled>();

// re2js's own refusals of repetition that would expand too far (Go's regexp/syntax limits).
const RE2_SIZE_ERRORS = /invalid repeat count|expression too large/;

function compileUncached(pattern: string): Compiled {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return { engine: null, tooComplex: `longer than ${MAX_PATTERN_LENGTH} characters` };
  let re2Refusal = '';
  try {
    const re = RE2JS.compile(pattern);
    const size = re.programSize();
    if (size > MAX_PROGRAM_SIZE) return { engine: null, tooComplex: tooLarge(size) };
    return { engine: 're2', re, size };
  } catch (err) {
    re2Refusal = err instanceof Error ? err.message : '';
  }
  try {
    const program = compileBacktracking(pattern);
    const size = program.code.length;
    if (size > MAX_PROGRAM_SIZE) return { engine: null, tooComplex: tooLarge(size) };
    return { engine: 'backtrack', program, size };
  } catch (err) {
    if (err instanceof PatternError && err.message === 'pattern too large')
      return { engine: null, tooComplex: `more than ${MAX_PROGRAM_SIZE} instructions once its repetitions are expanded` };
    if (RE2_SIZE_ERRORS.test(re2Refusal)) return { engine: null, tooComplex: 'repetitions nested too far' };
    return { engine: null, tooComplex: null };
  }
}

const tooLarge = (size: number) => `compiles to ${size} instructions, more than ${MAX_PROGRAM_SIZE}`;

/**
 * Compiling is work too, and a project with more distinct patterns than CACHE_LIMIT would compile
 * on every request: measured, 30–800 µs a pattern (about 100 µs fixed, then 0.3–3.5 µs an
 * instruction). With a budget, the fixed part is taken before and the rest charged after.
 */
const COMPILE_UNITS = 2_000;
const COMPILE_UNITS_PER_INSTRUCTION = 20;

function compile(pattern: string, budget?: RegexBudget): Compiled {
  const cached = compiled.get(pattern);
  if (cached !== undefined) return cached;
  budget?.take(COMPILE_UNITS);
  const result = compileUncached(pattern);
  // A refused pattern may have been compiled up to the limit before it was refused.
  budget?.charge(COMPILE_UNITS_PER_INSTRUCTION * (result.engine === null ? MAX_PROGRAM_SIZE : result.size));
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(pattern, result);
  return result;
}

/**
 * Why a pattern may not be saved in a flag, or null. Only cost is checked: a pattern neither
 * engine can read is still accepted, and matches nothing, as before.
 */
export function regexProblem(pattern: string): string | null {
  const c = compile(pattern);
  return c.engine === null ? c.tooComplex : null;
}

/**
 * true/false when the pattern was tested, null when it was refused, invalid or gave up. With a
 * budget, the search is paid from it; throws RegexBudgetExceeded when what is left cannot pay.
 */
export function regexSearch(pattern: string, subject: string, budget?: RegexBudget): boolean | null {
  if (pattern.length > MAX_PATTERN_LENGTH || subject.length > MAX_SUBJECT_LENGTH) return null;
  const c = compile(pattern, budget);
  if (c.engine === null) return null;
  // An upper bound for RE2 (see above), a rough lower one for the backtracking machine.
  const estimate = c.size * (subject.length + 1);
  const expensive = c.engine === 'backtrack' || estimate >= CACHE_MIN_COST;
  if (expensive) {
    const kept = cachedVerdict(pattern, subject);
    if (kept !== undefined) return kept;
  }
  if (budget === undefined) {
    const verdict = c.engine === 're2' ? c.re.matcher(subject).find() : backtrackSearch(c.program, subject).found;
    if (expensive && estimate >= CACHE_MIN_COST) keepVerdict(pattern, subject, verdict);
    return verdict;
  }
  return c.engine === 're2'
    ? re2Budgeted(c.re, estimate, pattern, subject, budget)
    : backtrackBudgeted(c.program, pattern, subject, budget);
}

/** RE2 cannot be stopped once running: its worst case is paid before it starts. */
function re2Budgeted(re: RE2JS, estimate: number, pattern: string, subject: string, budget: RegexBudget): boolean {
  budget.take(estimate);
  // Cheap searches (most of them) are not timed: reading the clock would cost more than they do.
  if (estimate < CACHE_MIN_COST) return re.matcher(subject).find();
  const started = performance.now();
  const verdict = re.matcher(subject).find();
  budget.spent(performance.now() - started);
  keepVerdict(pattern, subject, verdict);
  return verdict;
}

/** The machine is paid by the step, and stopped when the units or the time left run out. */
function backtrackBudgeted(program: Program, pattern: string, subject: string, budget: RegexBudget): boolean | null {
  // Reading the subject in is work too, paid first; what is left bounds the machine's steps. Never
  // cheap: its steps are only known once it ran.
  budget.take(subject.length, false);
  const allowed = Math.min(MAX_STEPS, budget.left);
  const started = performance.now();
  const deadline = started + budget.msLeft;
  const clockFrom = budget.clockFrom;
  const run = backtrackSearch(program, subject, allowed, deadline, clockFrom);
  const ended = performance.now();
  budget.spent(ended - started);
  budget.charge(Math.min(run.steps, allowed));
  // Stopped by the request's budget, not by a limit of its own: no verdict about the pattern and
  // the value, so nothing is kept and the flag fails.
  if (run.found === null && run.backtracks <= BACKTRACK_LIMIT) {
    if (run.steps > allowed && allowed < MAX_STEPS) budget.exhaust(`${subject.length + run.steps} units needed`);
    if (run.steps <= allowed && run.steps >= clockFrom && ended > deadline) budget.exhaust(`${REQUEST_REGEX_MS} ms of searching spent`);
  }
  if (subject.length + run.steps >= CACHE_MIN_COST) keepVerdict(pattern, subject, run.found);
  return run.found;
}
