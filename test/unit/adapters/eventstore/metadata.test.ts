import { describe, expect, it } from 'vitest';
import { dataBytes, toEventData, toRecordedEvent } from '../../../../src/adapters/eventstore/events';
import { decodeMetadata, encodeMetadata } from '../../../../src/adapters/eventstore/metadata';

const actor = { type: 'user' as const, id: 12, keyId: 'k-1' };
const recordedAt = '2026-11-25T10:00:00.000Z';
const created = new Date('2026-11-25T10:00:01.000Z');

describe('event metadata ↔ the KurrentDB event’s metadata JSON', () => {
  it('stores projectId, actor, recordedAt, schemaVersion, and correlation/causation under KurrentDB’s own keys', () => {
    expect(encodeMetadata({ projectId: 7, actor, correlationId: 'corr-1', causationId: 'cause-1' }, recordedAt, 2)).toEqual({
      recordedAt,
      projectId: 7,
      actor,
      schemaVersion: 2,
      $correlationId: 'corr-1',
      $causationId: 'cause-1',
    });
    // Absent ones are left out rather than stored as null.
    expect(encodeMetadata({ actor }, recordedAt, 1)).toEqual({ recordedAt, projectId: null, actor, schemaVersion: 1 });
  });

  it('reads back exactly what it stored, through JSON as the server keeps it', () => {
    for (const context of [
      { projectId: 7, actor, correlationId: 'corr-1', causationId: null },
      { projectId: null, actor: { type: 'system' as const }, correlationId: null, causationId: 'c-1' },
    ]) {
      const stored = JSON.parse(JSON.stringify(encodeMetadata(context, recordedAt, 3)));
      expect(decodeMetadata(stored, { id: '0190a3c4-0000-7000-8000-000000000001', created })).toEqual({
        metadata: { eventId: '0190a3c4-0000-7000-8000-000000000001', recordedAt, ...context },
        schemaVersion: 3,
      });
    }
  });

  it("gives events another writer put on the server (other metadata, none, or not JSON) the server's time and a system actor", () => {
    for (const raw of [undefined, { foo: 1 }, new Uint8Array([1, 2]), 'text', [1]]) {
      expect(decodeMetadata(raw, { id: 'e-1', created })).toEqual({
        metadata: { eventId: 'e-1', recordedAt: created.toISOString(), projectId: null, actor: { type: 'system' }, causationId: null, correlationId: null },
        schemaVersion: 1,
      });
    }
  });
});

describe('events appended and read', () => {
  const context = { projectId: 7, actor, correlationId: 'corr-1', causationId: null };

  it('appends JSON data with the port’s event id when it is a canonical UUID, a fresh UUID when there is none', () => {
    const id = '0190a3c4-0000-7000-8000-000000000001';
    const given = toEventData({ type: 'Tested', data: { n: 1 }, eventId: id, schemaVersion: 2 }, context, recordedAt);
    expect(given).toEqual({ id, contentType: 'application/json', type: 'Tested', data: { n: 1 }, metadata: encodeMetadata(context, recordedAt, 2) });
    const fresh = toEventData({ type: 'Tested', data: {} }, context, recordedAt);
    expect(fresh.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(fresh.metadata).toEqual(encodeMetadata(context, recordedAt, 1));
  });

  it('keeps an event id that is not a canonical UUID in the metadata, under a stable UUID the server accepts', () => {
    for (const eventId of ['ingest-42', '0190A3C4-0000-7000-8000-000000000001']) {
      const a = toEventData({ type: 'Tested', data: {}, eventId }, context, recordedAt);
      const b = toEventData({ type: 'Tested', data: {}, eventId }, context, recordedAt);
      expect(a.id).toBe(b.id);
      expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(a.metadata).toMatchObject({ eventId });
      expect(decodeMetadata(JSON.parse(JSON.stringify(a.metadata)), { id: a.id, created }).metadata.eventId).toBe(eventId);
    }
  });

  it('reads an event under the port’s stream name, at the position given, with revision and metadata', () => {
    const appended = toEventData({ type: 'Tested', data: { n: 1 }, schemaVersion: 2 }, context, recordedAt);
    const read = {
      streamId: 'tenant-s-1',
      id: appended.id,
      isJson: true as const,
      revision: 4n,
      type: 'Tested',
      created,
      data: { n: 1 },
      metadata: JSON.parse(JSON.stringify(appended.metadata)),
      position: { commit: 100n, prepare: 100n },
    };
    expect(toRecordedEvent(read, 's-1', 202)).toEqual({
      position: 202,
      streamId: 's-1',
      revision: 4,
      type: 'Tested',
      schemaVersion: 2,
      data: { n: 1 },
      metadata: { eventId: appended.id, recordedAt, ...context },
    });
  });

  it('measures data as the other adapters do: the bytes of its JSON text', () => {
    const event = (data: unknown) => ({ position: 2, streamId: 's', revision: 0, type: 'T', schemaVersion: 1, data, metadata: decodeMetadata(undefined, { id: 'x', created }).metadata });
    expect(dataBytes(event({ pad: 'x'.repeat(10) }))).toBe(JSON.stringify({ pad: 'x'.repeat(10) }).length);
    expect(dataBytes(event({ s: 'é😀' }))).toBe(Buffer.byteLength('{"s":"é😀"}'));
    expect(dataBytes(event(new Uint8Array(5)))).toBe(5);
  });
});
