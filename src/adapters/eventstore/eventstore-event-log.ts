import { EventStoreDBClient } from '@eventstore/db-client';
import { concatMap, from, Subject, type Observable } from 'rxjs';
import type { NewEvent, RecordedEvent } from '../../../streams';
import type { AppendOptions, AppendResult, EventLog, ReadAllOptions, ReadStreamOptions, SubscribeOptions } from '../../store/event-log';
import { appendEvents } from './append';
import { clientConnectionString, ConnectionStringError } from './connection';
import { LogScope } from './filter';
import { LiveHint } from './live-hint';
import { ReachabilityMonitor } from '../../store/reachability-monitor';
import { isUnreachable } from './errors';
import { LogReads } from './reads';
import { subscribeBatches } from '../../store/polling-subscription';
import type { ChainHead } from '../../store/hash-chain';
import { ReaderChain } from './chain';

export interface EventStoreEventLogOptions {
  /** `esdb://…`, `esdb+discover://…`, `kurrentdb://…` or `kurrentdb+discover://…`, with the client's settings. */
  connection: string;
  /**
   * This log's streams are the server's streams with this prefix (stripped in the port's names);
   * default none: every non-system stream of the server is this log's.
   */
  streamPrefix?: string;
  /** Stamps recordedAt; injectable so tests control time. */
  now?: () => Date;
  /** Fallback poll of live subscriptions, should a hint be lost. */
  pollIntervalMs?: number;
}

/**
 * The event log on KurrentDB / EventStoreDB: one port stream is one server stream, the port's
 * expected revisions are the server's, positions are `$all` commit positions (positions.ts), and
 * `$all` is read without the server's system events.
 */
export class EventStoreEventLog implements EventLog {
  private readonly closers = new Set<() => void>();
  private readonly reads: LogReads;
  private readonly chain: ReaderChain;
  private readonly hint: LiveHint;
  private readonly appended$ = new Subject<number>();
  private closing: Promise<void> | null = null;
  /** Whether writes can reach the server (for `/_health`): the last operation that could not, until one can. */
  readonly storage = new ReachabilityMonitor(isUnreachable);

  private constructor(
    private readonly client: EventStoreDBClient,
    private readonly scope: LogScope,
    private readonly now: () => Date,
    private readonly pollIntervalMs: number,
  ) {
    this.reads = new LogReads(client, scope);
    this.chain = new ReaderChain((o) => this.reads.readAll(o));
    this.hint = new LiveHint(client, scope.filter(), 1000);
  }

  /**
   * Connects and returns a ready log. The client connects lazily, so one cheap read proves the
   * server answers: a start on a server out of reach fails here, as the PostgreSQL log's does,
   * instead of at the first request.
   */
  static async open(options: EventStoreEventLogOptions): Promise<EventStoreEventLog> {
    const log = EventStoreEventLog.connect(options);
    try {
      await log.reads.probe();
    } catch (err) {
      await log.close().catch(() => undefined);
      throw err;
    }
    return log;
  }

  /** A log whose client connects on first use: a server out of reach shows in the first operation (503 log_unreachable). */
  static connect(options: EventStoreEventLogOptions): EventStoreEventLog {
    let client: EventStoreDBClient;
    try {
      client = EventStoreDBClient.connectionString(clientConnectionString(options.connection));
    } catch (err) {
      throw new ConnectionStringError((err as Error).message);
    }
    return EventStoreEventLog.over(client, options);
  }

  /** A log over a client made elsewhere (credentials or certificates set in code); close() disposes of it. */
  static over(client: EventStoreDBClient, options: Omit<EventStoreEventLogOptions, 'connection'> = {}): EventStoreEventLog {
    return new EventStoreEventLog(client, new LogScope(options.streamPrefix), options.now ?? (() => new Date()), options.pollIntervalMs ?? 500);
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const result = await this.storage.run(() => appendEvents(this.client, this.scope, streamId, events, options, this.now().toISOString()));
    this.appended$.next(result.lastPosition);
    return result;
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.storage.run(() => this.reads.readStream(streamId, options));
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.storage.run(() => this.chain.read(options));
  }

  head(): Promise<number> {
    return this.storage.run(() => this.reads.head());
  }

  /** Walks `$all` from the last position this handle knows the hash of (the start, on a first call). */
  chainHead(): Promise<ChainHead> {
    return this.storage.run(async () => this.chain.head(await this.reads.head()));
  }

  /** Positions of appends made through this handle, as they commit (in-process append notices). */
  get appends(): Observable<number> {
    return this.appended$.asObservable();
  }

  /** Calls `wake` on every hint of the server's live subscription (and on notifyAppended), until stopped. */
  onAppendHint(wake: () => void): () => void {
    return this.hint.listen(wake);
  }

  /** Another thread of this process appended: wake live subscriptions now rather than at the server's hint. */
  notifyAppended(_position: number): void {
    this.hint.wakeAll();
  }

  subscribeBatches(options?: SubscribeOptions): Observable<RecordedEvent[]> {
    return subscribeBatches(
      {
        readAll: (o) => this.readAll(o),
        onAppend: (wake) => this.hint.listen(wake),
        pollIntervalMs: this.pollIntervalMs,
        closers: this.closers,
      },
      options,
    );
  }

  subscribe(options?: SubscribeOptions): Observable<RecordedEvent> {
    return this.subscribeBatches(options).pipe(concatMap((batch) => from(batch)));
  }

  /** Resolves once the live subscription is confirmed by the server (subscriptions poll meanwhile). */
  listening(): Promise<void> {
    return this.hint.ready();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const close of [...this.closers]) close();
      this.appended$.complete();
      this.hint.close();
      await this.client.dispose();
    })();
    return this.closing;
  }
}
