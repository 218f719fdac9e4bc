import { z } from 'zod';
import { defineEvent, type EventOf } from './contract';

/** One stream per export: its configuration, pauses, backfill requests and deletion. */
export const batchExportStream = (id: string) => `batchexport-${id}`;
/**
 * One stream per run. The run id is deterministic per (export, interval), so "this interval was
 * already scheduled" is "this stream exists": appending RunScheduled with `no_stream` is what
 * keeps two schedulers from scheduling the same interval twice.
 */
export const batchExportRunStream = (runId: string) => `batchexportrun-${runId}`;
/** Log entries of an export and its runs; appended with `any`, so logging never races a run's state. */
export const batchExportLogStream = (batchExportId: string) => `batchexportlog-${batchExportId}`;

export const BATCH_EXPORT_INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'] as const;
export type BatchExportInterval = (typeof BATCH_EXPORT_INTERVALS)[number];

/** What each interval value means, in milliseconds: part of the contract, replays depend on it. */
export const INTERVAL_MS: Readonly<Record<BatchExportInterval, number>> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  'every 5 minutes': 300_000,
  'every 15 minutes': 900_000,
};

export const RUN_STATUSES = [
  'Starting',
  'Running',
  'Completed',
  'Failed',
  'FailedRetryable',
  'Cancelled',
  'Terminated',
  'TimedOut',
  'ContinuedAsNew',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const LOG_LEVELS = ['DEBUG', 'LOG', 'INFO', 'WARNING', 'ERROR'] as const;
export type BatchExportLogLevel = (typeof LOG_LEVELS)[number];

const Iso = z.string().min(1);
const Id = z.uuid();
/** The stored config includes secrets: it is the worker's input. Responses redact it. */
const Destination = z.object({ type: z.string().min(1), config: z.record(z.string(), z.unknown()) });
const Schema = z.record(z.string(), z.unknown());

export const BatchExportCreated = defineEvent(
  'BatchExportCreated',
  z.object({
    id: Id,
    projectId: z.number().int().positive(),
    name: z.string(),
    model: z.literal('events'),
    destination: Destination,
    interval: z.enum(BATCH_EXPORT_INTERVALS),
    paused: z.boolean(),
    startAt: Iso.nullable(),
    endAt: Iso.nullable(),
    hogqlQuery: z.string().nullable(),
    schema: Schema.nullable(),
    createdBy: z.number().int().nullable(),
  }),
);

/** Only the fields that changed are present; `null` clears an optional field. */
export const BatchExportUpdated = defineEvent(
  'BatchExportUpdated',
  z.object({
    id: Id,
    projectId: z.number().int().positive(),
    name: z.string().optional(),
    destination: Destination.optional(),
    interval: z.enum(BATCH_EXPORT_INTERVALS).optional(),
    startAt: Iso.nullable().optional(),
    endAt: Iso.nullable().optional(),
    hogqlQuery: z.string().nullable().optional(),
    schema: Schema.nullable().optional(),
    /** Writable in PostHog's API; informational only (the scheduler reads pause events). */
    lastPausedAt: Iso.nullable().optional(),
  }),
);

/** The pause time is the event's recordedAt; `automatic` marks the failure-rate auto-pause. */
export const BatchExportPaused = defineEvent(
  'BatchExportPaused',
  z.object({ id: Id, projectId: z.number().int().positive(), automatic: z.boolean(), reason: z.string().nullable() }),
);

/** `backfill`: the intervals skipped while paused are scheduled after all. */
export const BatchExportUnpaused = defineEvent(
  'BatchExportUnpaused',
  z.object({ id: Id, projectId: z.number().int().positive(), backfill: z.boolean() }),
);

/** One run per whole interval of [startAt, endAt), stepping from startAt, scheduled in order. */
export const BatchExportBackfillRequested = defineEvent(
  'BatchExportBackfillRequested',
  z.object({ id: Id, projectId: z.number().int().positive(), backfillId: Id, startAt: Iso, endAt: Iso }),
);

export const BatchExportDeleted = defineEvent(
  'BatchExportDeleted',
  z.object({ id: Id, projectId: z.number().int().positive() }),
);

const RunRef = { runId: Id, batchExportId: Id, projectId: z.number().int().positive() };

/** `scheduledAt` is the scheduler's "now" when it decided: the clock enters the log here. */
export const BatchExportRunScheduled = defineEvent(
  'BatchExportRunScheduled',
  z.object({ ...RunRef, dataIntervalStart: Iso, dataIntervalEnd: Iso, backfillId: Id.nullable(), scheduledAt: Iso }),
);

/** A worker claimed the run; another worker may take it over once `leaseUntil` has passed. */
export const BatchExportRunStarted = defineEvent(
  'BatchExportRunStarted',
  z.object({ ...RunRef, attempt: z.number().int().positive(), workerId: z.string().min(1), leaseUntil: Iso }),
);

/** A retryable failure: status FailedRetryable until `retryAt`, when a worker tries again. */
export const BatchExportRunAttemptFailed = defineEvent(
  'BatchExportRunAttemptFailed',
  z.object({ ...RunRef, attempt: z.number().int().positive(), error: z.string(), retryAt: Iso }),
);

export const BatchExportRunFinished = defineEvent(
  'BatchExportRunFinished',
  z.object({
    ...RunRef,
    status: z.enum(['Completed', 'Failed']),
    recordsCompleted: z.number().int().nonnegative(),
    recordsTotalCount: z.number().int().nonnegative().nullable(),
    bytesExported: z.number().int().nonnegative().nullable(),
    error: z.string().nullable(),
  }),
);

export const BatchExportRunCancelled = defineEvent(
  'BatchExportRunCancelled',
  z.object({ ...RunRef, reason: z.string() }),
);

/** Runs the interval again under the same run id (destinations are idempotent per run). */
export const BatchExportRunRetryRequested = defineEvent('BatchExportRunRetryRequested', z.object(RunRef));

export const BatchExportLogWritten = defineEvent(
  'BatchExportLogWritten',
  z.object({
    batchExportId: Id,
    projectId: z.number().int().positive(),
    runId: Id.nullable(),
    level: z.enum(LOG_LEVELS),
    message: z.string(),
    /** The writer's clock; several entries appended together keep their own times. */
    timestamp: Iso,
  }),
);

export const batchExportEvents = [
  BatchExportCreated,
  BatchExportUpdated,
  BatchExportPaused,
  BatchExportUnpaused,
  BatchExportBackfillRequested,
  BatchExportDeleted,
] as const;
export const batchExportRunEvents = [
  BatchExportRunScheduled,
  BatchExportRunStarted,
  BatchExportRunAttemptFailed,
  BatchExportRunFinished,
  BatchExportRunCancelled,
  BatchExportRunRetryRequested,
] as const;
export const batchExportLogEvents = [BatchExportLogWritten] as const;

export const allBatchExportEvents = [...batchExportEvents, ...batchExportRunEvents, ...batchExportLogEvents] as const;

export type BatchExportEvent = EventOf<(typeof batchExportEvents)[number]>;
export type BatchExportRunEvent = EventOf<(typeof batchExportRunEvents)[number]>;
export type BatchExportLogEvent = EventOf<(typeof batchExportLogEvents)[number]>;
export type BatchExportCreatedData = z.infer<typeof BatchExportCreated.schema>;
export type BatchExportUpdatedData = z.infer<typeof BatchExportUpdated.schema>;
export type RunScheduledData = z.infer<typeof BatchExportRunScheduled.schema>;
export type LogWrittenData = z.infer<typeof BatchExportLogWritten.schema>;

/**
 * Secret fields per destination type, including types this service cannot write to yet, so a
 * stored config of any known type is never echoed with its credentials.
 */
const KNOWN_SECRET_FIELDS: Readonly<Record<string, readonly string[]>> = {
  S3: ['aws_access_key_id', 'aws_secret_access_key'],
  Postgres: ['user', 'password'],
  Redshift: ['user', 'password', 'aws_access_key_id', 'aws_secret_access_key'],
  HTTP: ['token'],
  BigQuery: ['private_key', 'private_key_id', 'client_email', 'token_uri'],
  Snowflake: ['user', 'password', 'private_key', 'private_key_passphrase'],
  Databricks: ['client_id', 'client_secret'],
  AzureBlob: ['connection_string'],
};

/** For an unknown type, drop anything that looks like a credential rather than leak it. */
const FALLBACK_SECRET_FIELDS = [
  'password', 'token', 'secret', 'private_key', 'private_key_passphrase', 'aws_access_key_id',
  'aws_secret_access_key', 'client_secret', 'connection_string', 'api_key',
];

/**
 * The fields of a stored destination config of this type that are secrets (sealed in the log,
 * never shown): part of the contract, since every reader of these events must treat them alike.
 */
export function destinationSecretFields(type: string): readonly string[] {
  return KNOWN_SECRET_FIELDS[type] ?? FALLBACK_SECRET_FIELDS;
}
