import type { EventLogChoice } from '../config/event-log';
import { openServerLog } from './event-log';
import { openRuntime, type Runtime, type RuntimeOptions } from './open-runtime';

/**
 * The runtime over the log EVENT_LOG names. SQLite opens synchronously in openRuntime, exactly as
 * before; a PostgreSQL log is connected (and its schema created) first, a KurrentDB log connected.
 */
export async function openRuntimeOn(eventLog: EventLogChoice, options: Omit<RuntimeOptions, 'eventLog'>): Promise<Runtime> {
  if (eventLog.kind === 'sqlite') return openRuntime(options);
  const opened = await openServerLog(eventLog, { now: options.now });
  try {
    return openRuntime({ ...options, eventLog: opened });
  } catch (err) {
    await opened.log.close();
    throw err;
  }
}
