import Database from 'better-sqlite3';
import type { RecordedEvent } from '../../../streams';
import type { SqlSession, SqlStore } from '../../../src/store/read-model-projection';
import { INGESTION_TABLES, ingestionProjection, ingestionQueries } from '../../../projections/ingestion';
import { cachedStore, SqliteReadModelStore, sqliteTableDdl } from '../../../src/adapters/sqlite/read-models';

export const PROJECT = 1;
export const RECORDED_AT = '2024-06-01T12:00:00.000Z';
const BASE_TIME = Date.parse('2024-06-01T10:00:00.000Z');

export interface CaptureOptions {
  uuid?: string;
  /** Defaults to one second after the previous event's. */
  timestamp?: string;
  receivedAt?: string;
  projectId?: number;
  historical?: boolean;
}

/** Builds RecordedEvents as the log would: increasing positions, a fixed recordedAt. */
export class LogBuilder {
  private position = 0;

  capture(event: string, distinctId: string, properties: Record<string, unknown> = {}, options: CaptureOptions = {}) {
    const n = ++this.position;
    const projectId = options.projectId ?? PROJECT;
    const timestamp = options.timestamp ?? new Date(BASE_TIME + n * 1000).toISOString();
    return this.recorded('EventCaptured', projectId, {
      uuid: options.uuid ?? `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      event,
      distinct_id: distinctId,
      properties,
      timestamp,
      sent_at: null,
      received_at: options.receivedAt ?? timestamp,
      ip: null,
      historical_migration: options.historical ?? false,
    }, n);
  }

  warning(type: string, details: Record<string, unknown>, projectId = PROJECT) {
    return this.recorded('IngestionWarningRaised', projectId, { type, source: 'capture', details }, ++this.position);
  }

  private recorded(type: string, projectId: number, data: unknown, position: number): RecordedEvent {
    return {
      position,
      streamId: `ingest-${projectId}`,
      revision: position - 1,
      type,
      schemaVersion: 1,
      data,
      metadata: {
        eventId: `evt-${position}`,
        recordedAt: RECORDED_AT,
        projectId,
        actor: { type: 'project_key', projectId },
        causationId: null,
        correlationId: null,
      },
    };
  }
}

/**
 * A fresh in-memory read-model store with the projection's tables, as the runner would hand it: the
 * fold and the queries go through the port (`store`, `session`); `db` reads the same connection
 * synchronously for assertions.
 */
export function freshStore() {
  const sqlite = new Database(':memory:');
  for (const table of INGESTION_TABLES) for (const statement of sqliteTableDdl(table)) sqlite.exec(statement);
  const db: SqlStore = cachedStore(sqlite);
  const store = new SqliteReadModelStore(sqlite);
  const session = store.session;
  return { sqlite, db, store, session, q: ingestionQueries(session), apply: (...events: RecordedEvent[]) => fold(session, events) };
}

export async function fold(db: SqlSession, events: readonly RecordedEvent[]): Promise<void> {
  for (const event of events) await ingestionProjection.apply(event, db);
}

/** Every row of a table in its declared total order (what replay digests). */
export function rowsOf(db: SqlStore, table: string): unknown[] {
  const spec = ingestionProjection.tables.find((t) => t.name === table);
  if (!spec) throw new Error(`unknown table ${table}`);
  return db.prepare(`SELECT * FROM ${table} ORDER BY ${spec.orderBy}`).all();
}

export function warningTypes(db: SqlStore): string[] {
  return (db.prepare('SELECT type FROM ingestion_warnings ORDER BY position, seq').all() as { type: string }[]).map((r) => r.type);
}

export function personRow(db: SqlStore, uuid: string) {
  return db.prepare('SELECT * FROM persons WHERE uuid = ?').get(uuid) as
    | { uuid: string; properties: string; created_at: string; is_identified: number; version: number }
    | undefined;
}

export function eventRow(db: SqlStore, uuid: string) {
  return db.prepare('SELECT * FROM events WHERE uuid = ?').get(uuid) as Record<string, unknown> | undefined;
}

export const count = (db: SqlStore, table: string) =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
