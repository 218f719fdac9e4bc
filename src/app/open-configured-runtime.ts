import type { EventLogChoice, ReadModelsChoice } from '../config';
import { openServerLog, type OpenedEventLog } from './event-log';
import { openRuntime, type Runtime, type RuntimeOptions } from './open-runtime';
import { openSharedReadModels, type SharedReadModels } from './read-models';

export type ConfiguredRuntimeOptions = Omit<RuntimeOptions, 'eventLog' | 'sharedReadModels'> & {
  /** READ_MODELS: SQLite files in DATA_DIR (default) or a shared PostgreSQL schema. */
  readModels?: ReadModelsChoice;
};

/**
 * The runtime over the log EVENT_LOG names and the read models READ_MODELS names. SQLite opens
 * synchronously in openRuntime, exactly as before; a PostgreSQL log or read-model store is
 * connected (and its schema created) first, a KurrentDB log connected.
 */
export async function openRuntimeOn(eventLog: EventLogChoice, options: ConfiguredRuntimeOptions): Promise<Runtime> {
  const { readModels, ...rest } = options;
  if (eventLog.kind === 'sqlite' && readModels?.kind !== 'postgres') return openRuntime(rest);
  let opened: OpenedEventLog | undefined;
  let shared: SharedReadModels | undefined;
  try {
    if (eventLog.kind !== 'sqlite') opened = await openServerLog(eventLog, { now: options.now });
    if (readModels?.kind === 'postgres') shared = await openSharedReadModels(readModels);
    return openRuntime({ ...rest, eventLog: opened, sharedReadModels: shared });
  } catch (err) {
    await opened?.log.close();
    await shared?.close();
    throw err;
  }
}
