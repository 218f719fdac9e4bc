import { expect } from 'vitest';
import { fold, type Decider } from '../../src/runtime/decider';
import { DomainError, type DomainErrorKind } from '../../src/errors';

/**
 * Specification-style decider tests: given past events, when a command, then new events (or an error).
 *   spec(decider).given([...]).when(cmd).then([...])
 */
export function spec<C, E extends { type: string; data: unknown }, S>(decider: Decider<C, E, S>) {
  return {
    given(events: E[]) {
      const state = fold(decider.evolve, decider.initialState(), events);
      return {
        when(command: C) {
          const run = () => decider.decide(command, state);
          return {
            then(expected: E[]) {
              expect(run()).toEqual(expected);
            },
            thenNothing() {
              expect(run()).toEqual([]);
            },
            thenThrows(kind: DomainErrorKind, message?: string | RegExp) {
              let caught: unknown;
              try {
                run();
              } catch (err) {
                caught = err;
              }
              expect(caught).toBeInstanceOf(DomainError);
              expect((caught as DomainError).kind).toBe(kind);
              if (message) expect((caught as DomainError).message).toMatch(message);
            },
          };
        },
      };
    },
  };
}
