import { evaluateAll } from '../evaluate';
import { explainFlag, type FlagFacts } from '../explain';
import type { RequestState } from './evaluate-request';

/** One flag in PostHog's `evaluation_reasons` answer (compat §14), with the facts that decided it. */
export interface FlagReason {
  value: boolean | string;
  evaluation: { reason: string; condition_index: number | null };
  /** Null when the flag could not be evaluated (a read it needed failed). */
  facts: FlagFacts | null;
}

/**
 * Every flag of a request state, evaluated by the engine exactly as `/flags` evaluates it and then
 * explained. Taking the state, not the stores, is the seam for "as of": a state rebuilt for a past
 * moment is explained the same way.
 */
export function explainState(state: RequestState): Record<string, FlagReason> {
  const result = evaluateAll(state.definitions, state.context);
  const entries: [string, FlagReason][] = [];
  for (const flag of state.definitions) {
    if (flag.deleted) continue;
    const evaluation = result.flags[flag.key];
    if (evaluation === undefined) {
      entries.push([flag.key, { value: false, evaluation: { reason: 'error', condition_index: null }, facts: null }]);
      continue;
    }
    // PostHog's evaluation_reasons names an inactive flag `disabled` (`/flags` says flag_disabled).
    const reason = evaluation.reason.code === 'flag_disabled' ? 'disabled' : evaluation.reason.code;
    entries.push([flag.key, { value: evaluation.value, evaluation: { reason, condition_index: evaluation.reason.condition_index }, facts: explainFlag(flag, state.context, evaluation) }]);
  }
  return Object.fromEntries(entries);
}
