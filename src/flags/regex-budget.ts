/**
 * The regex work one flags request may do, shared by all its `regex` / `not_regex` conditions
 * (issue 21): without it, each condition was bounded on its own, so a flag with 150 conditions did
 * 150 bounded searches, seconds of event loop for one public request.
 *
 * Counted in units: one step of the backtracking machine (an instruction run, a character compared
 * by a backreference, or a character of the subject read in), or one instruction × character of an
 * RE2 program (charged at that worst case before it runs). Measured on the 2-core development
 * machine, warm: 20–55 ns a backtracking step, 10–22 ns an RE2 instruction × character on re2js's
 * slowest (NFA) path; so REQUEST_REGEX_UNITS hold the loop for 5–25 ms. The rule is the units (the
 * same request gets the same answer); the clock is only a backstop for a cold or overloaded
 * process, where the same units were seen to cost 5–10 times as much: once REQUEST_REGEX_MS of
 * searching is spent, the backtracking machine is stopped and no further search starts.
 *
 * Ordinary requests stay far inside: a 100-character URL against a 60-instruction pattern costs
 * 6,000 units, and one full backtracking search (MAX_STEPS, 500,000 steps) fits.
 */
export const REQUEST_REGEX_UNITS = 600_000;
export const REQUEST_REGEX_MS = 100;

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

  constructor(units: number = REQUEST_REGEX_UNITS, ms: number = REQUEST_REGEX_MS) {
    this.#units = units;
    this.#ms = ms;
  }

  /** Units left. */
  get left(): number {
    return this.#units;
  }

  /** Milliseconds of searching left. */
  get msLeft(): number {
    return this.#ms;
  }

  /**
   * Takes `units`, or throws RegexBudgetExceeded and takes nothing: a cheaper condition later in
   * the request may still fit, so one expensive pattern does not fail every other flag.
   */
  take(units: number): void {
    if (this.#ms <= 0) throw new RegexBudgetExceeded(`${REQUEST_REGEX_MS} ms of searching spent`);
    if (units > this.#units) throw new RegexBudgetExceeded(`${units} units needed, ${this.#units} left`);
    this.#units -= units;
  }

  /** Deducts work already done (never throws: its result stands). */
  charge(units: number): void {
    this.#units = Math.max(0, this.#units - units);
  }

  /** Searching took `ms` (measured by the caller). */
  spent(ms: number): void {
    this.#ms -= ms;
  }

  /** Takes what is left and throws: for a search that was started and ran out on the way. */
  exhaust(what: string): never {
    this.#units = 0;
    throw new RegexBudgetExceeded(what);
  }
}
