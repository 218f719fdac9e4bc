import pg from 'pg';
import { concatMap, from, type Observable } from 'rxjs';
import type { NewEvent, RecordedEvent } from '../../../../streams';
import type { AppendOptions, AppendResult, EventLog, ReadAllOptions, SubscribeOptions } from '../../../store/event-log';
import { appendEvents } from './append';
import { AppendListener } from './notifications';
import { LogReads } from './reads';
import { logNames, migrate, type LogNames } from './schema';
import { subscribeBatches } from './subscription';

export interface PostgresEventLogOptions {
  /** `postgres://…` URL or discrete settings; the adapter opens its own pool and one LISTEN connection. */
  connection: string | pg.ClientConfig;
  /** The PostgreSQL schema holding this log (created when missing). Default `event_log`. */
  schema?: string;
  /** Pool size for appends and reads. */
  maxConnections?: number;
  /** Stamps recordedAt; injectable so tests control time. */
  now?: () => Date;
  /** Fallback poll of live subscriptions, should a notification be lost. */
  pollIntervalMs?: number;
}

export class PostgresEventLog implements EventLog {
  private readonly closers = new Set<() => void>();
  private readonly reads: LogReads;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly listener: AppendListener,
    private readonly names: LogNames,
    private readonly now: () => Date,
    private readonly pollIntervalMs: number,
  ) {
    this.reads = new LogReads(pool, names);
  }

  /** Connects, creates the schema if needed, and returns a ready log. */
  static async open(options: PostgresEventLogOptions): Promise<PostgresEventLog> {
    const base: pg.ClientConfig =
      typeof options.connection === 'string' ? { connectionString: options.connection } : { ...options.connection };
    // The append function relies on READ COMMITTED (a fresh snapshot per statement): see schema.ts.
    const config: pg.ClientConfig = { ...base, options: `${base.options ?? ''} -c default_transaction_isolation=read\\ committed`.trim() };
    const names = logNames(options.schema ?? 'event_log');
    const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 4 });
    // An idle pooled connection that dies must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, names);
      } finally {
        client.release();
      }
    } catch (err) {
      await pool.end();
      throw err;
    }
    const pollIntervalMs = options.pollIntervalMs ?? 100;
    const listener = new AppendListener(config, names.channel, 1000);
    return new PostgresEventLog(pool, listener, names, options.now ?? (() => new Date()), pollIntervalMs);
  }

  append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    return appendEvents(this.pool, this.names, streamId, events, options, this.now().toISOString());
  }

  readStream(streamId: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]> {
    return this.reads.readStream(streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.reads.readAll(options);
  }

  head(): Promise<number> {
    return this.reads.head();
  }

  subscribeBatches(options?: SubscribeOptions): Observable<RecordedEvent[]> {
    return subscribeBatches(
      {
        readAll: (o) => this.reads.readAll(o),
        onAppend: (wake) => this.listener.listen(wake),
        pollIntervalMs: this.pollIntervalMs,
        closers: this.closers,
      },
      options,
    );
  }

  subscribe(options?: SubscribeOptions): Observable<RecordedEvent> {
    return this.subscribeBatches(options).pipe(concatMap((batch) => from(batch)));
  }

  /** Resolves once live subscriptions receive notifications (they poll meanwhile). */
  listening(): Promise<void> {
    return this.listener.ready();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const close of [...this.closers]) close();
      await this.listener.close();
      await this.pool.end();
    })();
    return this.closing;
  }
}
