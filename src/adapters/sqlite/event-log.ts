import { randomUUID } from 'node:crypto';
import { Subject, concatMap, from, type Observable } from 'rxjs';
import { subscribeBatches } from '../../store/polling-subscription';
import type { Actor, NewEvent, RecordedEvent } from '../../../streams';
import {
  checkExpectedRevision,
  type AppendOptions,
  type AppendResult,
  type EventLog,
  type ReadAllOptions,
  type SubscribeOptions,
} from '../../store/event-log';
import { openSqlite, type Durability, type SqliteDatabase } from './open';
import { LogFileGuard } from './storage-guard';
import type { StorageMonitor } from '../../store/storage-fault';

export interface SqliteEventLogOptions {
  durability?: Durability;
  /** Stamps recordedAt; injectable so tests control time. */
  now?: () => Date;
  /** How often live subscriptions look for appends made by other processes. */
  pollIntervalMs?: number;
  readonly?: boolean;
  /**
   * Set when another connection checkpoints this log (the checkpointer thread): appends then
   * skip the checkpoint work, and only checkpoint themselves past this many WAL pages, as a backstop.
   */
  backstopCheckpointPages?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY,
  stream_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  type TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  data TEXT NOT NULL,
  event_id TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  project_id INTEGER,
  actor TEXT NOT NULL,
  causation_id TEXT,
  correlation_id TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
`;

const COLUMNS =
  'position, stream_id, revision, type, schema_version, data, event_id, recorded_at, project_id, actor, causation_id, correlation_id';

// Rows are read as arrays (raw mode): cheaper than one object per row on catch-up reads.
type RawRow = [number, string, number, string, number, string, string, string, number | null, string, string | null, string | null];

// A batch's events share one actor text: parse it once.
let lastActor: { text: string; value: Actor } = { text: '', value: { type: 'system' } };
function actorOf(text: string): Actor {
  if (text !== lastActor.text) lastActor = { text, value: JSON.parse(text) as Actor };
  return lastActor.value;
}

function toRecorded(row: RawRow): RecordedEvent {
  return {
    position: row[0],
    streamId: row[1],
    revision: row[2],
    type: row[3],
    schemaVersion: row[4],
    data: JSON.parse(row[5]),
    metadata: {
      eventId: row[6],
      recordedAt: row[7],
      projectId: row[8],
      actor: actorOf(row[9]),
      causationId: row[10],
      correlationId: row[11],
    },
  };
}

export class SqliteEventLog implements EventLog {
  readonly db: SqliteDatabase;
  private readonly appended$ = new Subject<number>();
  private readonly now: () => Date;
  private readonly pollIntervalMs: number;
  private readonly closers = new Set<() => void>();
  private readonly stmt;
  private readonly appendTx;
  private readonly guard: LogFileGuard | null;
  /** Whether writes to this log can be made durable (for `/_health`). */
  readonly storage: StorageMonitor;

  constructor(path: string, options: SqliteEventLogOptions = {}) {
    this.db = openSqlite(path, {
      durability: options.durability,
      readonly: options.readonly,
      pageSize: 4096,
      autoCheckpointPages: options.backstopCheckpointPages,
    });
    if (!options.readonly) this.db.exec(SCHEMA);
    this.guard = options.readonly || path === ':memory:' ? null : new LogFileGuard(path);
    this.storage = this.guard ?? { fault: () => null };
    this.now = options.now ?? (() => new Date());
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.stmt = {
      lastRevision: this.db.prepare<[string], { revision: number }>(
        'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
      ),
      insert: options.readonly
        ? null
        : this.db.prepare(`INSERT INTO events (${COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      readStream: this.db
        .prepare<[string, number, number], RawRow>(
          `SELECT ${COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?`,
        )
        .raw(true),
      readAll: this.db
        .prepare<[number, number, number], RawRow>(
          `SELECT ${COLUMNS} FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`,
        )
        .raw(true),
      // octet_length is read from the record header: the data itself is not loaded to size it.
      bytesOf: this.db.prepare<[number, number, number], { bytes: number | null }>(
        `SELECT sum(b) AS bytes FROM (SELECT octet_length(data) AS b FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?)`,
      ),
      rowsWithin: this.db
        .prepare<[number, number, number, number], { n: number }>(
          `SELECT count(*) AS n FROM (
             SELECT sum(octet_length(data)) OVER (ORDER BY position ROWS UNBOUNDED PRECEDING) AS bytes
             FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?)
           WHERE bytes <= ?`,
        ),
      head: this.db.prepare<[], { head: number | null }>('SELECT max(position) AS head FROM events'),
    };
    // IMMEDIATE takes the write lock before reading the revision, so two processes cannot both pass the check.
    this.appendTx = this.db.transaction((streamId: string, events: readonly NewEvent[], options: AppendOptions) => {
      const current = this.stmt.lastRevision.get(streamId)?.revision ?? null;
      checkExpectedRevision(streamId, options.expectedRevision ?? 'any', current);
      const ctx = options.context;
      const recordedAt = this.now().toISOString();
      const actor = JSON.stringify(ctx.actor);
      const insert = this.stmt.insert!;
      let revision = current ?? -1;
      let first = 0;
      let last = 0;
      for (const event of events) {
        revision++;
        const info = insert.run(
          streamId,
          revision,
          event.type,
          event.schemaVersion ?? 1,
          event.serialized ?? JSON.stringify(event.data),
          event.eventId ?? randomUUID(),
          recordedAt,
          ctx.projectId ?? null,
          actor,
          ctx.causationId ?? null,
          ctx.correlationId ?? null,
        );
        last = Number(info.lastInsertRowid);
        if (!first) first = last;
      }
      return { nextExpectedRevision: revision, firstPosition: first, lastPosition: last };
    });
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    return this.appendSync(streamId, events, options);
  }

  /** Synchronous form for the embedded hot path (ingestion), same semantics as append. */
  appendSync(streamId: string, events: readonly NewEvent[], options: AppendOptions): AppendResult {
    if (events.length === 0) throw new Error('append needs at least one event');
    const guard = this.guard;
    guard?.beforeWrite();
    let result: AppendResult;
    try {
      result = this.appendTx.immediate(streamId, events, options);
    } catch (err) {
      throw guard ? guard.translate(err) : err;
    }
    guard?.afterWrite();
    this.appended$.next(result.lastPosition);
    return result;
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}) {
    return this.stmt.readStream
      .all(streamId, options.fromRevision ?? 0, options.maxCount ?? Number.MAX_SAFE_INTEGER)
      .map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}) {
    return this.readAllSync(options);
  }

  readAllSync(options: ReadAllOptions = {}): RecordedEvent[] {
    const after = options.afterPosition ?? 0;
    const to = options.toPosition ?? Number.MAX_SAFE_INTEGER;
    let count = options.maxCount ?? 1_000_000;
    // Usually the whole count fits; only then is the cut found row by row.
    if (options.maxBytes !== undefined && (this.stmt.bytesOf.get(after, to, count)!.bytes ?? 0) > options.maxBytes) {
      count = Math.max(1, this.stmt.rowsWithin.get(after, to, count, options.maxBytes)!.n);
    }
    return this.stmt.readAll.all(after, to, count).map(toRecorded);
  }

  async head() {
    return this.stmt.head.get()?.head ?? 0;
  }

  subscribeBatches(options?: SubscribeOptions): Observable<RecordedEvent[]> {
    return subscribeBatches(
      {
        readAll: (o) => this.readAll(o),
        // Appends through this handle (or a notice from another thread) wake at once; other
        // processes append to the same file, and the poll is how we hear about them.
        onAppend: (wake) => {
          const live = this.appended$.subscribe(wake);
          return () => live.unsubscribe();
        },
        pollIntervalMs: this.pollIntervalMs,
        closers: this.closers,
      },
      options,
    );
  }

  subscribe(options: SubscribeOptions = {}): Observable<RecordedEvent> {
    return this.subscribeBatches(options).pipe(concatMap((batch) => from(batch)));
  }

  /** Positions of appends made through this handle, as they commit. */
  get appends(): Observable<number> {
    return this.appended$.asObservable();
  }

  /** Another thread or process appended up to `position`: wake live subscriptions now, not at the next poll. */
  notifyAppended(position: number): void {
    this.appended$.next(position);
  }

  async close() {
    for (const close of [...this.closers]) close();
    this.appended$.complete();
    this.db.close();
  }
}
