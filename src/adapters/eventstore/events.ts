import { randomUUID } from 'node:crypto';
import { jsonEvent, type EventData, type JSONType, type RecordedEvent as ClientRecordedEvent } from '@eventstore/db-client';
import { v5 as uuidv5 } from 'uuid';
import type { NewEvent, RecordedEvent } from '../../../streams';
import type { AppendContext } from '../../store/event-log';
import { decodeMetadata, encodeMetadata } from './metadata';
import { toPortRevision } from './revisions';

/** KurrentDB keeps UUIDs in this form: an id in it reads back unchanged. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Namespace of the UUIDs standing in for port event ids that are not UUIDs. */
const EVENT_ID_NAMESPACE = 'a3f1c5d2-8b4e-5f60-9a7b-2c3d4e5f6a7b';

/** The event as the client appends it: JSON data, the port's metadata in the event's metadata JSON. */
export function toEventData(event: NewEvent, context: AppendContext, recordedAt: string, appendKey?: { key: string; count: number }): EventData {
  const given = event.eventId;
  const canonical = given === undefined || CANONICAL_UUID.test(given);
  const id = given === undefined ? randomUUID() : canonical ? given : uuidv5(given, EVENT_ID_NAMESPACE);
  return jsonEvent({
    id,
    type: event.type,
    // The client serialises data with JSON.stringify whatever its type; its type names only the common shapes.
    data: event.data as JSONType,
    metadata: encodeMetadata(context, recordedAt, event.schemaVersion ?? 1, canonical ? undefined : given, appendKey),
  });
}

/** An event read from the server, under the port's stream name and at the port position the caller worked out for it. */
export function toRecordedEvent(event: ClientRecordedEvent, streamId: string, position: number): RecordedEvent {
  const { metadata, schemaVersion } = decodeMetadata(event.metadata, event);
  return {
    position,
    streamId,
    revision: toPortRevision(event.revision),
    type: event.type,
    schemaVersion,
    data: event.data,
    metadata,
  };
}

/** Bytes of the event's data as JSON text, as the other adapters measure ReadAllOptions.maxBytes. */
export function dataBytes(event: RecordedEvent): number {
  const data = event.data;
  if (data instanceof Uint8Array) return data.byteLength;
  return Buffer.byteLength(JSON.stringify(data) ?? '', 'utf8');
}
