import type { EventStoreEventLog } from '../adapters/eventstore';
import type { PostgresEventLog } from '../adapters/postgres/event-log';
import { ConfigError } from '../config';
import { redactedUrl, type EventLogChoice } from '../config/event-log';
import { hintedAppendNotifications, inProcessAppendNotifications, type AppendNotifications } from '../store/append-notifications';
import type { EventLog } from '../store/event-log';
import { SqliteEventLog } from '../adapters/sqlite/event-log';
import type { Durability } from '../adapters/sqlite/open';
import type { StorageMonitor } from '../store/storage-fault';

/** What another thread needs to open its own handle on the same log (plain data: it crosses postMessage). */
export type EventLogSpec =
  /**
   * `backstopCheckpointPages`: the WAL size past which a writing handle checkpoints itself, set when
   * a checkpointer thread copies the WAL back (open-runtime.ts). Every handle that appends (the
   * ingest thread's too) must share it: one left at SQLite's default checkpointed inside its own
   * commits every 16 MB of log, a copy and an fsync on the appending thread.
   */
  | { kind: 'sqlite'; path: string; durability?: Durability; backstopCheckpointPages?: number }
  | { kind: 'postgres'; url: string; schema: string }
  | { kind: 'eventstore'; url: string; streamPrefix: string };

/** One handle on the log, with the ports the runtime needs besides the log itself. */
export interface OpenedEventLog {
  log: EventLog;
  notifications: AppendNotifications;
  /** Whether writes can be made durable (`/_health`, and the reason of a 503). */
  storage: StorageMonitor;
  spec: EventLogSpec;
}

export interface SqliteLogOptions {
  durability?: Durability;
  now?: () => Date;
  /** Past this many WAL pages the appending thread checkpoints itself (when a checkpointer thread runs). */
  backstopCheckpointPages?: number;
}

/** The embedded log: synchronous, as the default start-up has always been. */
export function openSqliteLog(path: string, options: SqliteLogOptions = {}): OpenedEventLog {
  const log = new SqliteEventLog(path, options);
  return {
    log,
    notifications: inProcessAppendNotifications(log),
    storage: log.storage,
    spec: { kind: 'sqlite', path, durability: options.durability, backstopCheckpointPages: options.backstopCheckpointPages },
  };
}

/** The PostgreSQL log named by EVENT_LOG (connects, creates its schema when missing). */
export async function openPostgresLog(choice: Extract<EventLogChoice, { kind: 'postgres' }>, options: { now?: () => Date } = {}): Promise<OpenedEventLog> {
  // Loaded here, not at start-up: the default (SQLite) log never needs the pg client.
  const { isUnreachable, PostgresEventLog } = await import('../adapters/postgres/event-log');
  let log: PostgresEventLog;
  try {
    log = await PostgresEventLog.open({ connection: choice.url, schema: choice.schema, now: options.now });
  } catch (err) {
    // At start-up, a server out of reach is the operator's to fix: one line (exit 2), no stack.
    if (isUnreachable(err)) throw new ConfigError(`EVENT_LOG ${redactedUrl(choice.url)}: cannot reach PostgreSQL (${(err as Error).message})`);
    throw err;
  }
  return {
    log,
    // The server's NOTIFY wakes every handle's subscriptions and runners, in any process; in-process
    // notices only spare a worker thread that round trip.
    notifications: hintedAppendNotifications(log),
    storage: log.storage,
    spec: { kind: 'postgres', url: choice.url, schema: choice.schema },
  };
}

/** The KurrentDB / EventStoreDB log named by EVENT_LOG (connects, and proves the server answers). */
export async function openEventStoreLog(choice: Extract<EventLogChoice, { kind: 'eventstore' }>, options: { now?: () => Date } = {}): Promise<OpenedEventLog> {
  // Loaded only when EVENT_LOG names it: the gRPC client is slow to load, and the embedded default
  // (and each of its worker threads) should not pay for it.
  const eventstore = await import('../adapters/eventstore');
  let log: EventStoreEventLog;
  try {
    log = await eventstore.EventStoreEventLog.open({ connection: choice.url, streamPrefix: choice.streamPrefix, now: options.now });
  } catch (err) {
    // As for PostgreSQL: a server out of reach, or a connection string the client cannot parse,
    // is the operator's to fix: one line (exit 2), no stack.
    if (eventstore.isUnreachable(err)) throw new ConfigError(`EVENT_LOG ${redactedUrl(choice.url)}: cannot reach KurrentDB (${(err as Error).message})`);
    if (err instanceof eventstore.ConnectionStringError) throw new ConfigError(`EVENT_LOG ${redactedUrl(choice.url)}: ${(err as Error).message}`);
    throw err;
  }
  return {
    log,
    // The server's live subscription wakes every handle's subscriptions and runners, in any
    // process; in-process notices only spare a worker thread that round trip.
    notifications: hintedAppendNotifications(log),
    storage: log.storage,
    spec: { kind: 'eventstore', url: choice.url, streamPrefix: choice.streamPrefix },
  };
}

/** Opens the log EVENT_LOG names, other than the embedded SQLite one. */
export function openServerLog(choice: Exclude<EventLogChoice, { kind: 'sqlite' }>, options: { now?: () => Date } = {}): Promise<OpenedEventLog> {
  return choice.kind === 'postgres' ? openPostgresLog(choice, options) : openEventStoreLog(choice, options);
}

/** Opens a handle from a spec (the projection worker thread's own handle on the main thread's log). */
export async function openLogFromSpec(spec: EventLogSpec, options: SqliteLogOptions = {}): Promise<OpenedEventLog> {
  if (spec.kind === 'sqlite') return openSqliteLog(spec.path, { ...options, durability: spec.durability, backstopCheckpointPages: spec.backstopCheckpointPages });
  return openServerLog(spec);
}
