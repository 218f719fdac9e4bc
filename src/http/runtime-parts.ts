import type { Config } from '../config';
import type { Runtime } from '../app';

type Queries = Runtime['queries'];

/**
 * What a route plugin is handed: the runtime members it uses and, of the read-model queries, only
 * those it reads. Each context registers with its own parts; nothing hangs the whole runtime on the
 * fastify instance.
 */
export type Parts<K extends keyof Runtime = never, Q extends keyof Queries = never> = Pick<Runtime, K> & { queries: Pick<Queries, Q> };

/** The named members of `runtime` (and of its queries), and no others. */
export function partsOf<K extends keyof Runtime, Q extends keyof Queries>(runtime: Runtime, members: readonly K[], queries: readonly Q[]): Parts<K, Q> {
  const picked = Object.fromEntries(members.map((m) => [m, runtime[m]])) as Pick<Runtime, K>;
  return { ...picked, queries: Object.fromEntries(queries.map((q) => [q, runtime.queries[q]])) as Pick<Queries, Q> };
}

/** The request limits the ingestion routes apply. */
export type Limits = Pick<
  Config,
  'EVENT_BODY_LIMIT' | 'BATCH_BODY_LIMIT' | 'BATCH_DECOMPRESSED_LIMIT' | 'INGEST_EVENTS_PER_SECOND' | 'INGEST_BYTES_PER_MINUTE' | 'INGEST_HISTORICAL_EVENTS_PER_SECOND'
>;

export function limitsOf(config: Config): Limits {
  const { EVENT_BODY_LIMIT, BATCH_BODY_LIMIT, BATCH_DECOMPRESSED_LIMIT, INGEST_EVENTS_PER_SECOND, INGEST_BYTES_PER_MINUTE, INGEST_HISTORICAL_EVENTS_PER_SECOND } = config;
  return { EVENT_BODY_LIMIT, BATCH_BODY_LIMIT, BATCH_DECOMPRESSED_LIMIT, INGEST_EVENTS_PER_SECOND, INGEST_BYTES_PER_MINUTE, INGEST_HISTORICAL_EVENTS_PER_SECOND };
}
