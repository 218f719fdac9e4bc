import { z } from 'zod';

/** Who caused an event: kept in metadata so an auditor can see where every change came from. */
export const Actor = z.union([
  z.object({ type: z.literal('system') }),
  z.object({ type: z.literal('cli') }),
  z.object({ type: z.literal('user'), id: z.number().int(), keyId: z.string().optional() }),
  z.object({ type: z.literal('project_key'), projectId: z.number().int() }),
  z.object({ type: z.literal('scheduler') }),
  z.object({ type: z.literal('worker') }),
]);
export type Actor = z.infer<typeof Actor>;

export interface EventMetadata {
  eventId: string;
  /** Set once, by the log, at append: the only clock projections may read. */
  recordedAt: string;
  projectId: number | null;
  actor: Actor;
  causationId: string | null;
  correlationId: string | null;
}

/** An event as it sits in the log. */
export interface RecordedEvent<T extends string = string, D = unknown> {
  position: number;
  streamId: string;
  revision: number;
  type: T;
  schemaVersion: number;
  data: D;
  metadata: EventMetadata;
  /**
   * The record's link in the log's hash chain (src/store/hash-chain.ts): absent for records
   * appended before the chain started (a log upgraded in place), and where an adapter does not
   * carry it on that read (KurrentDB's stream reads; its chain is formed over $all).
   */
  hash?: string;
}

/** An event about to be appended; the log fills in position, revision and the rest of the metadata. */
export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  eventId?: string;
  /** Filled by the contracts layer; adapters store it as given (1 when absent). */
  schemaVersion?: number;
  /**
   * `data` as JSON text, already validated against its contract by the caller (the registry's
   * validate): the contracts layer then skips validation and the adapters store this text instead
   * of serialising `data` again. Lets a large append be prepared in slices, between turns of the
   * event loop, so that the synchronous append itself is short (see src/ingest/captured-records.ts).
   */
  serialized?: string;
}

type Upcaster = (data: unknown) => unknown;

/** One versioned event type: its schema at the current version and how older versions are lifted. */
export interface EventContract<T extends string = string, S extends z.ZodType = z.ZodType> {
  type: T;
  version: number;
  schema: S;
  /** upcasters[n] lifts data stored at version n to version n + 1. */
  upcasters: Readonly<Record<number, Upcaster>>;
}

export function defineEvent<T extends string, S extends z.ZodType>(
  type: T,
  schema: S,
  options: { version?: number; upcasters?: Record<number, Upcaster> } = {},
): EventContract<T, S> {
  return { type, schema, version: options.version ?? 1, upcasters: options.upcasters ?? {} };
}

/** The `{type, data}` union of a set of contracts, for exhaustive switches in deciders and projections. */
export type EventOf<C> = C extends EventContract<infer T, infer S> ? { type: T; data: z.infer<S> } : never;

export type RecordedOf<C> = C extends EventContract<infer T, infer S> ? RecordedEvent<T, z.infer<S>> : never;
