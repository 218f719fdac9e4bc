import type { z } from 'zod';
import type { EventContract, RecordedEvent } from '../../streams';

/** Each event of a union as the contract that types it: a contract whose data is not the event's does not fit. */
export type ContractOf<Event extends { type: string; data: unknown }> = Event extends unknown
  ? EventContract<Event['type'], z.ZodType<Event['data']>>
  : never;

/**
 * An aggregate's behaviour as pure functions: `decide` turns a command and the current state into new
 * events (or throws a domain error); `evolve` folds one event into the state. Time and ids arrive inside
 * the command, never read here.
 */
export interface Decider<Command, Event extends { type: string; data: unknown }, State> {
  /** The contracts of its stream's events: what a recorded event must be one of before `evolve` sees it. */
  readonly events: readonly ContractOf<Event>[];
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

export function fold<Event, State>(evolve: (s: State, e: Event) => State, initial: State, events: readonly Event[]): State {
  let state = initial;
  for (const e of events) state = evolve(state, e);
  return state;
}

/**
 * Whether a recorded event has the type of one of these contracts. Its data is then that contract's:
 * the log validated it at append and lifts it to the current version on read (src/store/contracted-log.ts).
 */
export function isEventOf<Event extends { type: string; data: unknown }>(
  contracts: readonly ContractOf<Event>[],
  event: RecordedEvent,
): event is RecordedEvent & Event {
  return contracts.some((c) => c.type === event.type);
}
