import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { EventLog } from '../../store/event-log';
import { isStorageFault, StorageUnavailableError } from '../../store/storage-fault';
import { connectNats } from './connection';
import { ENVELOPE_FORMAT, ENVELOPE_FORMAT_HEADER, messageId, parseEnvelope, publishedEvent } from './envelope';
import { consumersOf, ensureStream, type NatsLayout } from './layout';

export interface IngestConsumerOptions extends NatsLayout {
  url: string;
  /** Messages pulled per fetch: what one process holds in flight per consumer. */
  batch?: number;
  /** JetStream redelivers a message not acknowledged within this time (the holder died). */
  ackWaitMs?: number;
  onError?: (message: string, err: unknown) => void;
}

/** The ingest role once started. */
export interface IngestConsumers {
  /** Messages appended (duplicates included) since the start, per consumer. */
  readonly appended: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * How long one fetch waits for its messages. The client also gives a fetch up after two of the
 * server's idle heartbeats (half this each) went missing, and drops what the server was still
 * delivering to it: those messages come back only after their ack wait. At 1 s, a thread busy
 * appending a batch of large messages on a loaded machine (this role runs niced) went a second
 * without reading its socket, and the next batch stalled for the 10 s ack wait.
 */
const FETCH_EXPIRES_MS = 10_000;

/** Attempts of a message whose append fails for another reason than storage before it is set aside. */
const MAX_BAD_ATTEMPTS = 5;

const ns = (ms: number) => ms * 1_000_000;

/**
 * The `ingest` role: one durable pull consumer for live subjects, one for historical ones, each
 * appending its messages to the log one at a time in stream order (so in per-project order), with
 * the message's id as the append's idempotency key, and acknowledging only after the append
 * returned (durable). A crash between the append and the ack redelivers the message, and the
 * idempotent append answers it without appending again.
 *
 * One process at a time runs this (under the `ingest` lease with a shared log): when it takes over
 * from a process that died with messages unacknowledged, it first waits out their ack wait, so
 * that JetStream redelivers them (redeliveries go before new messages) and order holds.
 */
export async function startIngestConsumers(log: EventLog, options: IngestConsumerOptions): Promise<IngestConsumers> {
  const nc = await connectNats(options.url, 'eventful ingest');
  const batch = options.batch ?? 256;
  const ackWaitMs = options.ackWaitMs ?? 10_000;
  let stopping = false;
  const appended: Record<string, number> = {};
  const wake = new AbortController();
  /** Each consumer's fetch in progress: stopped on stop, so a quiet consumer does not hold the stop for its expiry. */
  const fetching = new Set<{ stop(): void }>();
  let loops: Promise<void>[];
  try {
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, options);
    const names: string[] = [];
    for (const { name, filter } of consumersOf(options)) {
      await ensureConsumer(jsm, options.stream, name, filter, ns(ackWaitMs), batch * 4);
      names.push(name);
      appended[name] = 0;
    }
    await waitOutOrphans(jsm, options.stream, names, ackWaitMs, wake.signal);
    const js = jetstream(nc);
    loops = names.map(async (name) => {
      const consumer = await js.consumers.get(options.stream, name);
      // One line per outage, not one per retry.
      let failing = false;
      while (!stopping) {
        let messages;
        try {
          messages = await consumer.fetch({ max_messages: batch, expires: FETCH_EXPIRES_MS });
          failing = false;
        } catch (err) {
          if (!failing) options.onError?.(`fetch from ${name} failed; retrying until NATS answers`, err);
          failing = true;
          await sleep(500, undefined, { signal: wake.signal }).catch(() => undefined);
          continue;
        }
        fetching.add(messages);
        try {
          for await (const m of messages) {
            // Stopping: what is left goes back at once, ahead of newer messages, to the next holder.
            if (stopping) {
              m.nak();
              continue;
            }
            if (await appendOne(log, m, ackWaitMs, () => stopping, options.onError)) {
              m.ack();
              appended[name]++;
            } else if (stopping) m.nak();
          }
        } catch (err) {
          // The fetch ended early (the server it ran on stopped: "heartbeats missed", a leader
          // moved). What it delivered and this holder did not acknowledge comes back after its ack
          // wait; the next fetch goes on from there.
          if (!failing) options.onError?.(`fetch from ${name} ended early; fetching again`, err);
          failing = true;
          await sleep(200, undefined, { signal: wake.signal }).catch(() => undefined);
        } finally {
          fetching.delete(messages);
        }
      }
    });
  } catch (err) {
    await nc.close();
    throw err;
  }
  return {
    appended,
    async stop() {
      stopping = true;
      wake.abort();
      for (const messages of fetching) messages.stop();
      await Promise.allSettled(loops);
      await drainQuietly(nc);
    },
  };
}

/**
 * Appends one message, retrying while the log cannot be written (the message is kept in progress
 * meanwhile, so it is not redelivered under us). Answers whether it may be acknowledged: true once
 * appended, or set aside after a message that can never be appended (logged, then terminated).
 */
async function appendOne(log: EventLog, m: JsMsg, ackWaitMs: number, stopping: () => boolean, onError?: (message: string, err: unknown) => void): Promise<boolean> {
  let envelope;
  try {
    const format = m.headers?.get(ENVELOPE_FORMAT_HEADER);
    envelope = parseEnvelope(m.data, format);
    // Format 2's record texts go to the log unread: a body must be the one capture published from
    // records it validated, or one bad text would leave the log unreadable at its position.
    if (format === ENVELOPE_FORMAT && m.headers?.get('Nats-Msg-Id') !== (await messageId(m.subject, Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength))))
      throw new Error('its Nats-Msg-Id is not the digest of its subject and body');
  } catch (err) {
    onError?.(`message ${m.seq} on ${m.subject} is not an ingestion envelope: terminated`, err);
    m.term();
    return false;
  }
  const key = `nats:${m.headers?.get('Nats-Msg-Id') || `${m.info.stream}:${m.seq}`}`;
  const records = envelope.records.map(publishedEvent);
  let bad = 0;
  for (let attempt = 0; ; attempt++) {
    const keepAlive = setInterval(() => m.working(), Math.max(1000, ackWaitMs / 3));
    try {
      await log.append(envelope.stream, records, { expectedRevision: 'any', context: envelope.context, idempotencyKey: key });
      return true;
    } catch (err) {
      const storage = err instanceof StorageUnavailableError || isStorageFault(err);
      if (!storage && ++bad >= MAX_BAD_ATTEMPTS) {
        onError?.(`message ${m.seq} on ${m.subject} could not be appended ${bad} times: terminated`, err);
        m.term();
        return false;
      }
      if (attempt === 0 || attempt % 20 === 0) onError?.(`append of message ${m.seq} on ${m.subject} failed; retrying`, err);
    } finally {
      clearInterval(keepAlive);
    }
    if (stopping()) return false;
    m.working();
    await sleep(Math.min(2000, 100 * 2 ** Math.min(attempt, 4)));
  }
}

async function ensureConsumer(jsm: JetStreamManager, stream: string, name: string, filter: string, ackWait: number, maxAckPending: number): Promise<void> {
  const config = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filter,
    ack_wait: ackWait,
    max_ack_pending: maxAckPending,
  };
  const existing = await jsm.consumers.info(stream, name).catch(() => null);
  if (!existing) await jsm.consumers.add(stream, config);
  else if (existing.config.ack_wait !== ackWait || existing.config.max_ack_pending !== maxAckPending) {
    await jsm.consumers.update(stream, name, { ack_wait: ackWait, max_ack_pending: maxAckPending });
  }
}

/** Messages delivered to a holder that is gone: wait until their ack wait has passed, so they come back first. */
async function waitOutOrphans(jsm: JetStreamManager, stream: string, names: string[], ackWaitMs: number, signal: AbortSignal): Promise<void> {
  for (const name of names) {
    const info = await jsm.consumers.info(stream, name);
    if (info.num_ack_pending > 0) {
      await sleep(ackWaitMs + 500, undefined, { signal }).catch(() => undefined);
      return;
    }
  }
}

async function drainQuietly(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) return;
  await nc.close().catch(() => undefined);
}
