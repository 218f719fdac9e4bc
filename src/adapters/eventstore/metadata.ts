import type { Actor, EventMetadata } from '../../../streams';
import type { AppendContext } from '../../store/event-log';

/**
 * The metadata JSON of an event this adapter appends. Correlation and causation use KurrentDB's
 * own `$correlationId` / `$causationId` keys, so the server's system projections (by correlation
 * id) see them. `eventId` is present only when the port's id is not a UUID (the event's KurrentDB
 * id must be one; see events.ts).
 */
export interface StoredMetadata {
  recordedAt: string;
  projectId: number | null;
  actor: Actor;
  schemaVersion: number;
  $correlationId?: string;
  $causationId?: string;
  eventId?: string;
  /** On the last event of a keyed append only: its idempotency key and how many events it holds (keyed-append.ts). */
  appendKey?: { key: string; count: number };
}

export function encodeMetadata(
  context: AppendContext,
  recordedAt: string,
  schemaVersion: number,
  foreignEventId?: string,
  appendKey?: { key: string; count: number },
): StoredMetadata {
  const stored: StoredMetadata = { recordedAt, projectId: context.projectId ?? null, actor: context.actor, schemaVersion };
  if (appendKey) stored.appendKey = appendKey;
  if (context.correlationId != null) stored.$correlationId = context.correlationId;
  if (context.causationId != null) stored.$causationId = context.causationId;
  if (foreignEventId !== undefined) stored.eventId = foreignEventId;
  return stored;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Back to the port's metadata. Events another writer put in the same database may carry other
 * metadata or none: they get the server's `created` time and a system actor instead of failing a
 * read (projections quarantine event types they do not know).
 */
export function decodeMetadata(raw: unknown, event: { id: string; created: Date }): { metadata: EventMetadata; schemaVersion: number } {
  const m = isObject(raw) ? raw : {};
  const actor = isObject(m.actor) && typeof m.actor.type === 'string' ? (m.actor as unknown as Actor) : ({ type: 'system' } as Actor);
  return {
    metadata: {
      eventId: typeof m.eventId === 'string' ? m.eventId : event.id,
      recordedAt: typeof m.recordedAt === 'string' ? m.recordedAt : event.created.toISOString(),
      projectId: typeof m.projectId === 'number' && Number.isSafeInteger(m.projectId) ? m.projectId : null,
      actor,
      causationId: stringOrNull(m.$causationId),
      correlationId: stringOrNull(m.$correlationId),
    },
    schemaVersion: typeof m.schemaVersion === 'number' && Number.isSafeInteger(m.schemaVersion) ? m.schemaVersion : 1,
  };
}

/** The key a stored event's metadata closes a keyed append with, if any. */
export function appendKeyOf(raw: unknown): { key: string; count: number } | null {
  if (!isObject(raw) || !isObject(raw.appendKey)) return null;
  const { key, count } = raw.appendKey;
  return typeof key === 'string' && typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? { key, count } : null;
}
