/**
 * The regex work one flags request may do, shared by all its `regex` / `not_regex` conditions
 * (issue 21): without it, each condition was bounded on its own, so a flag with 150 conditions did
 * 150 bounded searches, seconds of event loop for one public request.
 *
 * Counted in units: one step of the backtracking machine (an instruction run, a character compared
 * by a backreference, or a character of the subject read in), one instruction × character of an
 * RE2 program (charged at that worst case before it runs), or a share of compiling a pattern.
 * REQUEST_REGEX_UNITS is sized so that a request's regex work stays a few tens of milliseconds of
 * loop (docs/benchmarks.md has what a unit cost when it was set). One full backtracking search
 * (MAX_STEPS, 500,000 steps, on a value of up to 10,000 characters) still fits, as PostHog answers
 * it; an ordinary request uses a few thousand units (a 100-character URL against a 60-instruction
 * pattern: 6,000).
 *
 * The rule is the units, so that a request gets the same answer however busy the process is. But a
 * cold or overloaded process takes several times as long for the same units, so the clock is a
 * backstop: once a request
 * has used CLOCK_AFTER_UNITS, and REQUEST_REGEX_MS of searching are spent, the backtracking machine
 * is stopped and no further expensive search starts. Below CLOCK_AFTER_UNITS, where every ordinary
 * request stays, the clock is never read for a verdict.
 */
export const REQUEST_REGEX_UNITS = 650_000;
export const CLOCK_AFTER_UNITS = 200_000;
export const REQUEST_REGEX_MS = 50;
/**
 * Of REQUEST_REGEX_UNITS, what only cheap searches (under CHEAP_SEARCH units each) may use, and
 * they are not held to the clock: a request whose expensive conditions spent their share still
 * answers its ordinary regex flags (`@example\.com$` on an email costs a few hundred units).
 */
export const RESERVED_FOR_CHEAP = 100_000;
export const CHEAP_SEARCH = 10_000;

/** Thrown when a condition's regex needs more than what is left of its request's budget. */
export class RegexBudgetExceeded extends Error {
  constructor(what: string) {
    super(`regex budget of the request exceeded: ${what}`);
    this.name = 'RegexBudgetExceeded';
  }
}

/** One request's regex budget. Create one per request; never share one between requests. */
export class RegexBudget {
  #units: number;
  #ms: number;
  #used = 0;

  constructor(units: number = REQUEST_REGEX_UNITS, ms: number = REQUEST_REGEX_MS) {
    this.#units = units;
    this.#ms = ms;
  }

  /** Units an expensive search may still use (the reserve for cheap ones excluded). */
  get left(): number {
    return Math.max(0, this.#units - RESERVED_FOR_CHEAP);
  }

  /** Milliseconds of searching left. */
  get msLeft(): number {
    return this.#ms;
  }

  /** Units still to use before the clock counts (see CLOCK_AFTER_UNITS). */
  get clockFrom(): number {
    return Math.max(0, CLOCK_AFTER_UNITS - this.#used);
  }

  /**
   * Takes `units` for a search about to run, or throws RegexBudgetExceeded and takes nothing: a
   * cheaper condition later in the request may still fit, so one expensive pattern does not fail
   * every other flag.
   */
  take(units: number, cheap: boolean = units < CHEAP_SEARCH): void {
    if (cheap) {
      if (units > this.#units) throw new RegexBudgetExceeded(`${units} units needed, ${this.#units} left`);
    } else {
      if (this.#ms <= 0 && this.clockFrom === 0) throw new RegexBudgetExceeded(`${REQUEST_REGEX_MS} ms of searching spent`);
      if (units > this.left) throw new RegexBudgetExceeded(`${units} units needed, ${this.left} left`);
    }
    this.#units -= units;
    this.#used += units;
  }

  /** Deducts work already done (never throws: its result stands). */
  charge(units: number): void {
    this.#units = Math.max(0, this.#units - units);
    this.#used += units;
  }

  /** Searching took `ms` (measured by the caller). */
  spent(ms: number): void {
    this.#ms -= ms;
  }

  /** Empties the expensive share and throws: for a search that ran out on the way (charged first). */
  exhaust(what: string): never {
    this.#units = Math.min(this.#units, RESERVED_FOR_CHEAP);
    throw new RegexBudgetExceeded(what);
  }
}
