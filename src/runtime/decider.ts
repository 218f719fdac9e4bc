/**
 * An aggregate's behaviour as pure functions: `decide` turns a command and the current state into new
 * events (or throws a domain error); `evolve` folds one event into the state. Time and ids arrive inside
 * the command, never read here.
 */
export interface Decider<Command, Event extends { type: string; data: unknown }, State> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
}

export function fold<Event, State>(evolve: (s: State, e: Event) => State, initial: State, events: readonly Event[]): State {
  let state = initial;
  for (const e of events) state = evolve(state, e);
  return state;
}
