import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { NewEvent } from '../../../../streams';
import { checkIdempotencyKey, WrongExpectedRevisionError, type AppendOptions, type AppendResult } from '../../../store/event-log';
import type { LogNames } from './schema';
import { headText, tailText } from '../../../store/hash-chain';

interface AppendRow {
  current_revision: string | null;
  conflict: boolean;
  first_position: string | null;
  last_position: string | null;
  duplicate: boolean;
}

const UNIQUE_VIOLATION = '23505';

/** One round trip: the append function checks the revision, takes positions and inserts, atomically. */
export async function appendEvents(
  pool: pg.Pool,
  names: LogNames,
  streamId: string,
  events: readonly NewEvent[],
  options: AppendOptions,
  recordedAt: string,
): Promise<AppendResult> {
  if (events.length === 0) throw new Error('append needs at least one event');
  const expected = options.expectedRevision ?? 'any';
  const ctx = options.context;
  checkIdempotencyKey(options.idempotencyKey);
  const ids = events.map((e) => e.eventId ?? randomUUID());
  const shared = {
    recordedAt,
    projectId: ctx.projectId ?? null,
    actorText: JSON.stringify(ctx.actor),
    causationId: ctx.causationId ?? null,
    correlationId: ctx.correlationId ?? null,
  };
  let row: AppendRow;
  try {
    const result = await pool.query<AppendRow>(
      `SELECT current_revision, conflict, first_position, last_position, duplicate
       FROM ${names.appendFn}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        streamId,
        String(expected),
        events.map((e) => e.type),
        events.map((e) => e.schemaVersion ?? 1),
        events.map((e) => e.serialized ?? JSON.stringify(e.data)),
        ids,
        recordedAt,
        shared.projectId,
        shared.actorText,
        shared.causationId,
        shared.correlationId,
        // The chain's texts around each record's revision and data (src/store/hash-chain.ts), made
        // here so that the function under the lock only splices and hashes.
        JSON.stringify(streamId),
        events.map((e) => headText(e.type, e.schemaVersion ?? 1)),
        ids.map((eventId) => tailText({ ...shared, eventId })),
        options.idempotencyKey ?? null,
      ],
    );
    row = result.rows[0];
  } catch (err) {
    // Only reachable if appends stop being serialised: a concurrent writer took the same revision.
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === 'events_stream_revision') {
      const current = await pool.query<{ r: string | null }>(`SELECT max(revision) AS r FROM ${names.events} WHERE stream_id = $1`, [streamId]);
      const r = current.rows[0].r;
      throw new WrongExpectedRevisionError(streamId, expected, r === null ? 'no_stream' : Number(r));
    }
    throw err;
  }
  if (row.conflict) {
    throw new WrongExpectedRevisionError(streamId, expected, row.current_revision === null ? 'no_stream' : Number(row.current_revision));
  }
  return {
    nextExpectedRevision: Number(row.current_revision),
    firstPosition: Number(row.first_position),
    lastPosition: Number(row.last_position),
    ...(row.duplicate ? { duplicate: true } : {}),
  };
}
