import type { z } from 'zod';
import type { DestinationPolicy } from '../policy';

/** One analytics event as handed to a destination; field names follow PostHog's batch-export rows. */
export interface ExportRecord {
  uuid: string;
  event: string;
  properties: Record<string, unknown>;
  distinct_id: string;
  team_id: number;
  /** ISO 8601, event time. */
  timestamp: string;
  /** ISO 8601, ingestion time. */
  created_at: string;
  person_id: string | null;
  person_properties: Record<string, unknown> | null;
  set: Record<string, unknown> | null;
  set_once: Record<string, unknown> | null;
  elements_chain: string | null;
  ip?: string | null;
  site_url?: string | null;
  /** The JSON fields as JSON text, when the source already holds them so (see RawJsonFields). */
  raw?: RawJsonFields;
}

/**
 * The analytics store keeps `properties` (and the person's) as JSON text. A record may carry that
 * text so writers that only re-serialise (JSONLines, Parquet, Postgres) splice it in instead of
 * parsing and stringifying every row; it must describe the same values as the object fields.
 */
export interface RawJsonFields {
  properties: string;
  person_properties: string | null;
  set: string | null;
  set_once: string | null;
}

/**
 * Records already serialised by the source, a whole number of rows per chunk. Sources that can
 * encode on other threads offer them (see RecordBatches.encoded); the bytes are exactly what the
 * format's writer would have produced from the same records.
 */
export interface EncodedChunk {
  bytes: Uint8Array;
  records: number;
}

/**
 * What a destination reads: the run's records in batches, and, when the source can produce them
 * faster that way, the same records pre-encoded in a file format. A destination uses one or the
 * other, never both; `encoded` returns null when the source cannot encode this run.
 */
export type RecordBatches = AsyncIterable<ExportRecord[]> & {
  encoded?: (format: 'JSONLines') => AsyncIterable<EncodedChunk> | null;
};

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';

export interface RunContext {
  batchExportId: string;
  runId: string;
  teamId: number;
  dataIntervalStart: Date;
  dataIntervalEnd: Date;
  isBackfill: boolean;
  log: (level: LogLevel, message: string) => void;
  /**
   * Where the run may write: the File export root and the network policy. Destinations that
   * touch files or the network refuse to run without it.
   */
  policy?: DestinationPolicy;
}

export interface WriteResult {
  recordsCompleted: number;
  bytesExported?: number;
}

export interface Destination<C> {
  /** 'S3' | 'Postgres' | 'HTTP' | 'File' | 'NoOp' */
  type: string;
  /** Validates `destination.config` on create; issue paths name the offending field. */
  configSchema: z.ZodType<C>;
  /** Never returned in responses, logs or error messages. */
  secretFields: readonly string[];
  /**
   * Writes every batch. Must be idempotent per run: re-running the same interval leaves the
   * destination as one run would, because the worker retries and replays runs.
   */
  write(config: C, ctx: RunContext, batches: RecordBatches): Promise<WriteResult>;
  /**
   * The create/PATCH check of where a validated config points (File path, network hosts);
   * throws PathRefusedError or TargetRefusedError. Runs check again when they connect.
   */
  checkTarget?(config: C, policy: DestinationPolicy): Promise<void>;
  /**
   * The config fields that say where data goes: a PATCH changing one must carry the secret
   * fields again, so a stored credential cannot be redirected to another server.
   */
  targetFields?: readonly string[];
}

/**
 * The worker decides between FailedRetryable (retry with backoff) and Failed from `retryable`,
 * so destinations must classify: transient transport trouble is retryable, anything a retry
 * cannot fix (credentials, missing bucket or database, bad config) is not.
 */
export class DestinationError extends Error {
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DestinationError';
    this.retryable = retryable;
  }
}

export const retryableError = (message: string, cause?: unknown) =>
  new DestinationError(message, true, { cause });
export const nonRetryableError = (message: string, cause?: unknown) =>
  new DestinationError(message, false, { cause });

/** The run's policy; a destination that writes files or connects cannot run without one. */
export function policyOf(ctx: RunContext): DestinationPolicy {
  if (!ctx.policy) throw new DestinationError('No export policy was given to this run', false);
  return ctx.policy;
}
