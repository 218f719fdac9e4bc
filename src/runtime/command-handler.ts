import type { Actor, RecordedEvent } from '../../streams';
import type { AppendResult, EventLog } from '../store/event-log';
import { WrongExpectedRevisionError } from '../store/event-log';
import { fold, isEventOf, type ContractOf, type Decider } from './decider';

export interface CommandContext {
  actor: Actor;
  projectId?: number | null;
  correlationId?: string | null;
  causationId?: string | null;
}

export interface HandledCommand<Event, State> {
  events: Event[];
  state: State;
  /** Null when decide produced no events (nothing appended). */
  result: AppendResult | null;
}

/** A conflict that survived every retry: the HTTP layer answers 409. */
export class ConcurrencyConflictError extends Error {
  constructor(readonly streamId: string, readonly attempts: number) {
    super(`stream ${streamId} kept changing under the command (${attempts} attempts)`);
    this.name = 'ConcurrencyConflictError';
  }
}

/**
 * Read the stream, fold, decide, append at the read revision. A concurrent writer makes the append
 * fail with a conflict; the whole read-decide-append then runs again, a bounded number of times.
 */
export async function handleCommand<Command, Event extends { type: string; data: unknown }, State>(
  log: EventLog,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  options: { maxAttempts?: number } = {},
): Promise<HandledCommand<Event, State>> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const recorded = await log.readStream(streamId);
    const state = fold(decider.evolve, decider.initialState(), eventsOf(decider.events, streamId, recorded));
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, result: null };
    const expectedRevision = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision;
    try {
      const result = await log.append(streamId, events, {
        expectedRevision,
        context: {
          actor: context.actor,
          projectId: context.projectId ?? null,
          correlationId: context.correlationId ?? null,
          causationId: context.causationId ?? null,
        },
      });
      return { events, state: fold(decider.evolve, state, events), result };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
      if (attempt >= maxAttempts) throw new ConcurrencyConflictError(streamId, attempt);
    }
  }
}

/** The stream's events as the decider's; one of another type means the stream is not this decider's, and folding it would be a guess. */
function eventsOf<Event extends { type: string; data: unknown }>(
  contracts: readonly ContractOf<Event>[],
  streamId: string,
  recorded: readonly RecordedEvent[],
): Event[] {
  return recorded.map((event) => {
    if (!isEventOf(contracts, event)) throw new Error(`stream ${streamId} holds a ${event.type} event, which its decider does not fold`);
    return event;
  });
}
