import type { AppendResult, EventLog } from '../store/event-log';
import { handleCommand, type CommandContext, type HandledCommand } from './command-handler';
import type { Decider } from './decider';

/** Resolves once the read models a caller reads back (bound to their names) have applied `position`. */
export type WaitForReadModels = (position: number) => Promise<void>;

export interface ReadYourWritesOptions {
  /** The read models the caller reads next. */
  waitFor: WaitForReadModels;
  /** See handleCommand. */
  maxAttempts?: number;
  /**
   * When the command appends nothing: by default there is nothing to wait for; `wait_for_head`
   * waits for the log's head instead, so the read models hold at least the events the decider saw.
   */
  nothingAppended?: 'no_wait' | 'wait_for_head';
}

/**
 * Read-your-writes for a command: runs it (handleCommand) and resolves once the read models named by
 * `waitFor` have applied what it appended. A command that appends nothing waits for nothing (unless
 * `nothingAppended` says otherwise). Answers what handleCommand answered.
 */
export async function handleCommandAndWait<Command, Event extends { type: string; data: unknown }, State>(
  log: EventLog,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  options: ReadYourWritesOptions,
): Promise<HandledCommand<Event, State>> {
  const handled = await handleCommand(log, streamId, decider, command, context, { maxAttempts: options.maxAttempts });
  if (handled.result) await options.waitFor(handled.result.lastPosition);
  else if (options.nothingAppended === 'wait_for_head') await options.waitFor(await log.head());
  return handled;
}

/** Read-your-writes for a plain append (no decider): `append` may append nothing (null), and then nothing is waited for. */
export async function appendAndWait(append: () => Promise<AppendResult | null>, waitFor: WaitForReadModels): Promise<AppendResult | null> {
  const result = await append();
  if (result) await waitFor(result.lastPosition);
  return result;
}
