import { MAX_EVENT_CHARS, MAX_EVENTS_PER_REQUEST, MAX_JSON_VALUES_PER_REQUEST, SLICE_CHARS, SLICE_EVENTS } from './batch-limits';
import { IngestError, isIngestError, noData, tooManyEvents, tooManyValues } from './errors';
import { batchFields, type ExtractedBatch, splitPayload } from './extract-batch';
import { isJsonObject } from './json-object';
import { jsonValuesAtMost } from './json-values';
import { parsePayload } from './parse-payload';

/** An event too large to ingest: what its warning says about it. */
export interface OversizedEvent {
  event: string | null;
  eventUuid: string | null;
  chars: number;
}

/** One slice: the events' JSON array ending at `end` in the bytes, or one oversized event (no bytes). */
export type BatchSlice = { end: number; events: number } | { end: number; oversized: OversizedEvent };

/** A large request decoded off the event loop: its fields, and its events as JSON texts in slices. */
export interface SlicedBatchData extends Omit<ExtractedBatch, 'events'> {
  events: number;
  /** Every slice's JSON array as UTF-8, one after another (transferred, not copied). */
  bytes: Uint8Array;
  slices: BatchSlice[];
}

/** A refusal as it crosses threads (an IngestError's fields). */
export type Refusal = Pick<IngestError, 'status' | 'type' | 'code' | 'detail'>;

export type SliceOutcome = { ok: true; batch: SlicedBatchData } | { ok: false; refusal: Refusal };

/**
 * On the decode thread: a large decoded body's bytes to its sliced batch. Counts its JSON values
 * before parsing (refused past MAX_JSON_VALUES_PER_REQUEST), parses and checks it as the event
 * loop would (parse-payload), counts its events, then writes each slice back as JSON text. The
 * event loop then never parses more than one slice (SLICE_EVENTS events, ~SLICE_CHARS) per turn.
 */
export function sliceBatch(bytes: Uint8Array): SliceOutcome {
  try {
    return { ok: true, batch: slice(bytes) };
  } catch (error) {
    if (!isIngestError(error)) throw error;
    return { ok: false, refusal: { status: error.status, type: error.type, code: error.code, detail: error.detail } };
  }
}

function slice(bytes: Uint8Array): SlicedBatchData {
  if (jsonValuesAtMost(bytes, MAX_JSON_VALUES_PER_REQUEST) > MAX_JSON_VALUES_PER_REQUEST) throw tooManyValues(MAX_JSON_VALUES_PER_REQUEST);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').replace(/^\uFEFF/, '');
  if (text.trim() === '') throw noData();
  const { envelope, events } = splitPayload(parsePayload(text));
  if (events.length > MAX_EVENTS_PER_REQUEST) throw tooManyEvents(MAX_EVENTS_PER_REQUEST);

  const texts: string[] = [];
  const slices: Array<{ chars: number; events: number } | { chars: 0; oversized: OversizedEvent }> = [];
  let pending: string[] = [];
  let pendingChars = 0;
  const close = () => {
    if (pending.length === 0) return;
    const json = `[${pending.join(',')}]`;
    texts.push(json);
    slices.push({ chars: json.length, events: pending.length });
    pending = [];
    pendingChars = 0;
  };
  for (const event of events) {
    const json = JSON.stringify(event);
    if (json.length > MAX_EVENT_CHARS) {
      close();
      slices.push({ chars: 0, oversized: describeOversized(event, json.length) });
      continue;
    }
    if (pending.length === SLICE_EVENTS || (pending.length > 0 && pendingChars + json.length > SLICE_CHARS)) close();
    pending.push(json);
    pendingChars += json.length + 1;
  }
  close();

  // One buffer of its own (never a pooled one), so that it can be transferred.
  const lengths = texts.map((t) => Buffer.byteLength(t));
  const out = Buffer.allocUnsafeSlow(lengths.reduce((a, b) => a + b, 0));
  let offset = 0;
  let next = 0;
  const placed: BatchSlice[] = slices.map((s) => {
    if ('oversized' in s) return { end: offset, oversized: s.oversized };
    offset += out.write(texts[next], offset);
    next++;
    return { end: offset, events: s.events };
  });
  return { ...batchFields(envelope, events), events: events.length, bytes: out, slices: placed };
}

function describeOversized(event: unknown, chars: number): OversizedEvent {
  const name = isJsonObject(event) && typeof event.event === 'string' ? event.event : null;
  const uuid = isJsonObject(event) && event.uuid !== undefined ? (JSON.stringify(event.uuid) ?? null) : null;
  return { event: name, eventUuid: uuid, chars };
}

export const refusalError = (r: Refusal): IngestError => new IngestError(r.status, r.type, r.code, r.detail);
