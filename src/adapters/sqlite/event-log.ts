import { Subject, concatMap, from, type Observable } from 'rxjs';
import { subscribeBatches } from '../../store/polling-subscription';
import type { Actor, NewEvent, RecordedEvent } from '../../../streams';
import {
  type AppendOptions,
  type ChainedRecord,
  type AppendResult,
  type EventLog,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
} from '../../store/event-log';
import { AppendThread } from './append-thread-client';
import { appendTransaction, COLUMNS } from './append-transaction';
import { CHAIN_HASHES_SCHEMA, HASH_BYTES, hasChainHashes, hexOf, STORED_HASH_SQL } from './chain-hashes';
import { ChainHasher } from './chain-hasher';
import { openSqlite, type Durability, type SqliteDatabase } from './open';
import { LogFileGuard } from './storage-guard';
import type { StorageMonitor } from '../../store/storage-fault';
import type { ChainHead } from '../../store/hash-chain';

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
  /** `false` appends without hashing: only to measure what the hash chain costs (test/bench/log.ts). */
  chain?: boolean;
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
  correlation_id TEXT,
  hash TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
`;


// Rows are read as arrays (raw mode): cheaper than one object per row on catch-up reads.
type RawRow = [number, string, number, string, number, string, string, string, number | null, string, string | null, string | null, StoredHash];
/** The same with the data read as the bytes of its text (readChained). */
type ChainedRow = [number, string, number, string, number, Buffer, string, string, number | null, string, string | null, string | null, StoredHash];
/** A record's hash as stored (chain-hashes.ts): 32 bytes, 64 hex digits, or none (before the chain). */
type StoredHash = Buffer | string | null;

/**
 * Upgrades a log made before the hash chain in place: its records keep no hash, and the chain
 * starts with the next append (verify says where). Returns whether the log has the column (a
 * read-only handle on an old log cannot add it).
 */
function ensureHashColumn(db: SqliteDatabase, readonly: boolean): boolean {
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all();
  if (columns.length === 0 || columns.some((c) => c.name === 'hash')) return true;
  if (readonly) return false;
  try {
    db.exec('ALTER TABLE events ADD COLUMN hash TEXT');
  } catch (err) {
    // Another process upgraded it at the same moment.
    if (!/duplicate column/.test((err as Error).message)) throw err;
  }
  return true;
}

// A batch's events share one actor text: parse it once.
let lastActor: { text: string; value: Actor } = { text: '', value: { type: 'system' } };
function actorOf(text: string): Actor {
  if (text !== lastActor.text) lastActor = { text, value: JSON.parse(text) as Actor };
  return lastActor.value;
}

function toRecorded(row: RawRow): RecordedEvent {
  const recorded: RecordedEvent = {
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
  const hash = hexOf(row[12]);
  if (hash !== null) recorded.hash = hash;
  return recorded;
}

/** A row as the chain covers it: the data as the bytes stored, the actor as its text. */
function toChained(row: ChainedRow): ChainedRecord {
  const chained: ChainedRecord = {
    position: row[0],
    content: {
      streamId: row[1],
      revision: row[2],
      type: row[3],
      schemaVersion: row[4],
      data: row[5],
      eventId: row[6],
      recordedAt: row[7],
      projectId: row[8],
      actorText: row[9],
      causationId: row[10],
      correlationId: row[11],
    },
  };
  const hash = hexOf(row[12]);
  if (hash !== null) chained.hash = hash;
  return chained;
}

/**
 * An append whose prepared texts (NewEvent.serialized) pass this many characters runs on the
 * writer thread: its insert and commit grow with its bytes, and a large request's would be one
 * long turn of the event loop (docs/benchmarks.md). Below it (every common append) the log's own
 * connection writes at once.
 */
export const OFF_THREAD_APPEND_CHARS = 1024 * 1024;

const preparedChars = (events: readonly NewEvent[]): number => {
  let chars = 0;
  for (const e of events) chars += e.serialized?.length ?? 0;
  return chars;
};

export class SqliteEventLog implements EventLog {
  readonly db: SqliteDatabase;
  private readonly appended$ = new Subject<number>();
  private readonly now: () => Date;
  private readonly pollIntervalMs: number;
  private readonly closers = new Set<() => void>();
  private readonly stmt;
  private readonly appendTx;
  /** Hashes batched appends' chains on a thread of its own (null when read-only). */
  private readonly hasher: ChainHasher | null;
  private readonly guard: LogFileGuard | null;
  /** Large prepared appends go to this thread (file logs that take writes); null otherwise. */
  private readonly writer: AppendThread | null;
  /** Settles when the append on the writer thread does; null when none is running. */
  private offThread: Promise<void> | null = null;
  /** Whether writes to this log can be made durable (for `/_health`). */
  readonly storage: StorageMonitor;

  constructor(path: string, options: SqliteEventLogOptions = {}) {
    this.db = openSqlite(path, {
      durability: options.durability,
      readonly: options.readonly,
      pageSize: 4096,
      autoCheckpointPages: options.backstopCheckpointPages,
    });
    if (!options.readonly) this.db.exec(SCHEMA + CHAIN_HASHES_SCHEMA);
    // Before the hash column, the column list reads a NULL in its place; before the chain's own
    // table (a read-only handle on an older log), only the column.
    const hasColumn = ensureHashColumn(this.db, options.readonly ?? false);
    const hasTable = hasChainHashes(this.db);
    const hashColumn = !hasColumn ? 'NULL AS hash' : hasTable ? `${STORED_HASH_SQL} AS hash` : 'hash';
    const columns = COLUMNS.replace(/hash$/, hashColumn);
    // Reads of a range take their hashes from the appends' rows in one query (chainRange), not one
    // lookup per record.
    const rangeColumns = COLUMNS.replace(/hash$/, hasColumn ? 'hash' : 'NULL AS hash');
    this.guard = options.readonly || path === ':memory:' ? null : new LogFileGuard(path);
    this.storage = this.guard ?? { fault: () => null };
    this.now = options.now ?? (() => new Date());
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.stmt = {
      readStream: this.db
        .prepare<[string, number, number, number, number], RawRow>(
          `SELECT ${columns} FROM events WHERE stream_id = ? AND revision >= ? AND revision <= ? AND position <= ? ORDER BY revision LIMIT ?`,
        )
        .raw(true),
      readAll: this.db
        .prepare<[number, number, number], RawRow>(
          `SELECT ${rangeColumns} FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`,
        )
        .raw(true),
      // The data as the bytes of its text: the chain hashes those bytes, which decoding them to a
      // string and encoding it again cost ten times as much as (test/bench/replay.ts's verify).
      readChained: this.db
        .prepare<[number, number, number], ChainedRow>(
          `SELECT ${rangeColumns.replace(', data,', ', CAST(data AS BLOB) AS data,')} FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`,
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
      chainRange: hasTable
        ? this.db
            .prepare<[number, number], [number, number, Buffer]>(
              'SELECT first_position, last_position, hashes FROM chain_hashes WHERE last_position >= ? AND first_position <= ? ORDER BY last_position',
            )
            .raw(true)
        : null,
      chainHead: this.db.prepare<[], { position: number; hash: StoredHash }>(`SELECT position, ${hashColumn} FROM events ORDER BY position DESC LIMIT 1`),
    };
    this.hasher = options.readonly ? null : new ChainHasher();
    this.appendTx = options.readonly ? null : appendTransaction(this.db, { chain: options.chain, hasher: this.hasher ?? undefined });
    this.writer =
      options.readonly || path === ':memory:'
        ? null
        : new AppendThread({ path, durability: options.durability, autoCheckpointPages: options.backstopCheckpointPages, chain: options.chain });
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    // Behind a large append on the writer thread: a write here would wait for its lock synchronously.
    while (this.offThread) await this.offThread;
    if (this.writer && preparedChars(events) > OFF_THREAD_APPEND_CHARS) return this.appendOffThread(this.writer, streamId, events, options);
    return this.appendSync(streamId, events, options);
  }

  /** A large prepared append on the writer thread: the same one transaction, without holding the event loop. */
  private async appendOffThread(writer: AppendThread, streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const guard = this.guard;
    guard?.beforeWrite();
    const written = writer.append(streamId, events, options, this.now().toISOString());
    this.offThread = written.then(
      () => undefined,
      () => undefined,
    );
    let result: AppendResult;
    try {
      result = await written;
    } catch (err) {
      throw guard ? guard.translate(err) : err;
    } finally {
      this.offThread = null;
    }
    guard?.afterWrite();
    this.appended$.next(result.lastPosition);
    return result;
  }

  /** Synchronous form for the embedded hot path (ingestion), same semantics as append. */
  appendSync(streamId: string, events: readonly NewEvent[], options: AppendOptions): AppendResult {
    if (events.length === 0) throw new Error('append needs at least one event');
    const guard = this.guard;
    guard?.beforeWrite();
    let result: AppendResult;
    try {
      if (!this.appendTx) throw new Error('the log is open read-only');
      result = this.appendTx(streamId, events, options, this.now().toISOString());
    } catch (err) {
      throw guard ? guard.translate(err) : err;
    }
    guard?.afterWrite();
    this.appended$.next(result.lastPosition);
    return result;
  }

  /**
   * Starts the thread that hashes batched appends' chains now instead of on the first large batch
   * (whose chain is hashed in line meanwhile): for a process about to ingest.
   */
  async warmChain(): Promise<void> {
    await this.hasher?.warm();
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}) {
    const max = Number.MAX_SAFE_INTEGER;
    return this.stmt.readStream
      .all(streamId, options.fromRevision ?? 0, options.toRevision ?? max, options.toPosition ?? max, options.maxCount ?? max)
      .map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}) {
    return this.readAllSync(options);
  }

  readAllSync(options: ReadAllOptions = {}): RecordedEvent[] {
    return this.withHashes(this.rowsOf(this.stmt.readAll, options)).map(toRecorded);
  }

  async readChained(options: ReadAllOptions = {}): Promise<ChainedRecord[]> {
    return this.withHashes(this.rowsOf(this.stmt.readChained, options)).map(toChained);
  }

  /** Rows in position order, with the hashes their appends stored (chain-hashes.ts) where the row has none of its own. */
  private withHashes<Row extends RawRow | ChainedRow>(rows: Row[]): Row[] {
    if (rows.length === 0 || !this.stmt.chainRange) return rows;
    const appends = this.stmt.chainRange.all(rows[0][0], rows[rows.length - 1][0]);
    let a = 0;
    for (const row of rows) {
      if (row[12] !== null) continue;
      const position = row[0];
      while (a < appends.length && appends[a][1] < position) a++;
      if (a === appends.length) break;
      const [first, , hashes] = appends[a];
      if (first <= position) row[12] = hashes.subarray((position - first) * HASH_BYTES, (position - first + 1) * HASH_BYTES);
    }
    return rows;
  }

  private rowsOf<Row>(statement: { all(after: number, to: number, count: number): Row[] }, options: ReadAllOptions): Row[] {
    const after = options.afterPosition ?? 0;
    const to = options.toPosition ?? Number.MAX_SAFE_INTEGER;
    let count = options.maxCount ?? 1_000_000;
    // Usually the whole count fits; only then is the cut found row by row.
    if (options.maxBytes !== undefined && (this.stmt.bytesOf.get(after, to, count)!.bytes ?? 0) > options.maxBytes) {
      count = Math.max(1, this.stmt.rowsWithin.get(after, to, count, options.maxBytes)!.n);
    }
    return statement.all(after, to, count);
  }

  async head() {
    return this.stmt.head.get()?.head ?? 0;
  }

  async chainHead(): Promise<ChainHead> {
    const row = this.stmt.chainHead.get();
    return { position: row?.position ?? 0, hash: hexOf(row?.hash) };
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
    while (this.offThread) await this.offThread;
    await this.writer?.close();
    await this.hasher?.close();
    for (const close of [...this.closers]) close();
    this.appended$.complete();
    this.db.close();
  }
}
