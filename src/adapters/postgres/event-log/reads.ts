import type pg from 'pg';
import type { Actor, RecordedEvent } from '../../../../streams';
import type { ReadAllOptions, ReadStreamOptions } from '../../../store/event-log';
import type { LogNames } from './schema';
import type { ChainHead } from '../../../store/hash-chain';

const COLUMNS =
  'position, stream_id, revision, type, schema_version, data, event_id, recorded_at, project_id, actor, causation_id, correlation_id, hash';

// Rows come as arrays (rowMode 'array'): cheaper than one object per row on catch-up reads. bigint
// columns arrive as strings; positions stay below 2^53, so Number() is exact.
type RawRow = [string, string, string, string, number, string, string, string, string | null, string, string | null, string | null, string | null];

// A batch's events share one actor text: parse it once.
let lastActor: { text: string; value: Actor } = { text: '', value: { type: 'system' } };
function actorOf(text: string): Actor {
  if (text !== lastActor.text) lastActor = { text, value: JSON.parse(text) as Actor };
  return lastActor.value;
}

function toRecorded(row: RawRow): RecordedEvent {
  const recorded: RecordedEvent = {
    position: Number(row[0]),
    streamId: row[1],
    revision: Number(row[2]),
    type: row[3],
    schemaVersion: row[4],
    data: JSON.parse(row[5]),
    metadata: {
      eventId: row[6],
      recordedAt: row[7],
      projectId: row[8] === null ? null : Number(row[8]),
      actor: actorOf(row[9]),
      causationId: row[10],
      correlationId: row[11],
    },
  };
  if (row[12] !== null) recorded.hash = row[12];
  return recorded;
}

/** Above any real position; a bigint literal so a missing bound never needs a second query text. */
const NO_UPPER_BOUND = '9223372036854775807';

export class LogReads {
  private readonly sql;

  constructor(
    private readonly pool: pg.Pool,
    names: LogNames,
  ) {
    // A page is the first $3 rows after $1 by the primary key, bounded above afterwards: with the
    // upper bound inside, a table whose statistics are stale (fresh, or just bulk-loaded) gets a
    // bitmap scan of the whole range plus a sort on every page, and a catch-up turns quadratic.
    const page = (cols: string) => `SELECT ${cols} FROM ${names.events} WHERE position > $1 ORDER BY position LIMIT $3`;
    this.sql = {
      // Both upper bounds always present (NO_UPPER_BOUND when absent): one query text, and the
      // (stream_id, revision) index serves the range; the position bound filters within it.
      readStream: `SELECT ${COLUMNS} FROM ${names.events} WHERE stream_id = $1 AND revision >= $2 AND revision <= $4 AND position <= $5 ORDER BY revision LIMIT $3`,
      readAll: `SELECT ${COLUMNS} FROM (${page(COLUMNS)}) page WHERE position <= $2 ORDER BY position`,
      // The bytes are data's UTF-8 length, as SQLite's octet_length; PostgreSQL takes it from the
      // value's header, without detoasting. The cut is the last row whose running total fits, or
      // the first row alone: a reader always advances. ($1, cut] holds at most $3 rows, so any plan
      // for the outer query is cheap. One statement, so one snapshot.
      readAllBounded: `
        SELECT ${COLUMNS} FROM ${names.events}
        WHERE position > $1 AND position <= least($2::bigint, coalesce(
          (SELECT max(position) FROM (
             ${page('position, sum(octet_length(data)) OVER (ORDER BY position ROWS UNBOUNDED PRECEDING) AS bytes')}) sized
           WHERE bytes <= $4),
          (SELECT min(position) FROM ${names.events} WHERE position > $1)))
        ORDER BY position LIMIT $3`,
      // Appends are serialised and visible before the next one takes positions (see schema.ts),
      // so the highest visible position has no gap below it.
      head: `SELECT max(position) AS head FROM ${names.events}`,
      chainHead: `SELECT position, hash FROM ${names.events} ORDER BY position DESC LIMIT 1`,
    };
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const result = await this.pool.query<RawRow>({
      text: this.sql.readStream,
      values: [streamId, options.fromRevision ?? 0, options.maxCount ?? NO_UPPER_BOUND, options.toRevision ?? NO_UPPER_BOUND, options.toPosition ?? NO_UPPER_BOUND],
      rowMode: 'array',
    });
    return result.rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.afterPosition ?? 0;
    const to = options.toPosition ?? NO_UPPER_BOUND;
    const count = options.maxCount ?? 1_000_000;
    const result = await this.pool.query<RawRow>(
      options.maxBytes === undefined
        ? { text: this.sql.readAll, values: [after, to, count], rowMode: 'array' }
        : { text: this.sql.readAllBounded, values: [after, to, count, options.maxBytes], rowMode: 'array' },
    );
    return result.rows.map(toRecorded);
  }

  async chainHead(): Promise<ChainHead> {
    const result = await this.pool.query<{ position: string; hash: string | null }>(this.sql.chainHead);
    const row = result.rows[0];
    return { position: row ? Number(row.position) : 0, hash: row?.hash ?? null };
  }

  async head(): Promise<number> {
    const result = await this.pool.query<{ head: string | null }>(this.sql.head);
    return Number(result.rows[0].head ?? 0);
  }
}
