import pg from 'pg';
import { concatMap, from, Subject, type Observable } from 'rxjs';
import type { NewEvent, RecordedEvent } from '../../../../streams';
import type { AppendOptions, AppendResult, EventLog, ReadAllOptions, ReadStreamOptions, SubscribeOptions } from '../../../store/event-log';
import { appendEvents } from './append';
import { AppendListener } from './notifications';
import { ReachabilityMonitor } from '../../../store/reachability-monitor';
import { isUnreachable } from './reachability';
import { LogReads } from './reads';
import { logNames, migrate, type LogNames } from './schema';
import { subscribeBatches } from '../../../store/polling-subscription';
import type { ChainHead } from '../../../store/hash-chain';

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
  /** How long a new connection may take before the server counts as unreachable (unless the URL sets connect_timeout). */
  connectTimeoutMs?: number;
}

export class PostgresEventLog implements EventLog {
  private readonly closers = new Set<() => void>();
  private readonly reads: LogReads;
  private readonly appended$ = new Subject<number>();
  private closing: Promise<void> | null = null;
  /** Whether writes can reach the server (for `/_health`): the last operation that could not, until one can. */
  readonly storage = new ReachabilityMonitor(isUnreachable);

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
    const base: pg.ClientConfig = {
      // Without a timeout, a connection attempt to a silent host waits forever and so does the write.
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      keepAlive: true,
      ...(typeof options.connection === 'string' ? { connectionString: options.connection } : options.connection),
    };
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

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const result = await this.storage.run(() => appendEvents(this.pool, this.names, streamId, events, options, this.now().toISOString()));
    this.appended$.next(result.lastPosition);
    return result;
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.storage.run(() => this.reads.readStream(streamId, options));
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.storage.run(() => this.reads.readAll(options));
  }

  head(): Promise<number> {
    return this.storage.run(() => this.reads.head());
  }

  chainHead(): Promise<ChainHead> {
    return this.storage.run(() => this.reads.chainHead());
  }

  /** Calls `wake` on every NOTIFY of an append by any process (and on notifyAppended), until stopped. */
  onAppendHint(wake: () => void): () => void {
    return this.listener.listen(wake);
  }

  /** Positions of appends made through this handle, as they commit (in-process append notices). */
  get appends(): Observable<number> {
    return this.appended$.asObservable();
  }

  /**
   * Another thread of this process appended up to `position`: wake live subscriptions now. The
   * server's NOTIFY reaches them as well; this only saves its round trip, and a spare wake-up
   * costs one empty read.
   */
  notifyAppended(_position: number): void {
    this.listener.wakeAll();
  }

  subscribeBatches(options?: SubscribeOptions): Observable<RecordedEvent[]> {
    return subscribeBatches(
      {
        readAll: (o) => this.readAll(o),
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
      this.appended$.complete();
      await this.listener.close();
      await this.pool.end();
    })();
    return this.closing;
  }
}
