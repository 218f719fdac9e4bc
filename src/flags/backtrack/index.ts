/**
 * A small backtracking regex engine for the patterns RE2 refuses (lookaround, backreferences,
 * atomic groups), bounded by a backtrack limit like the fancy-regex engine of PostHog's flags
 * service. See regex.ts for when it is used.
 */
import { run, type Run } from './machine';
import { compileProgram, type Program } from './program';
import { parsePattern } from './syntax';

export { BACKTRACK_LIMIT, MAX_STEPS, type Run } from './machine';
export { PatternError } from './syntax';
export type { Program } from './program';

/** Compiles a pattern; throws PatternError when it is invalid or uses unsupported syntax. */
export function compileBacktracking(pattern: string): Program {
  return compileProgram(parsePattern(pattern));
}

/** Searches `subject` for the pattern anywhere (unanchored), within the limits (`maxSteps` and the clock: see machine.ts). */
export function backtrackSearch(program: Program, subject: string, maxSteps?: number, deadline?: number, clockFrom?: number): Run {
  return run(program, subject, maxSteps, deadline, clockFrom);
}
