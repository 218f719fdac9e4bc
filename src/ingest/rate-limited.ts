import { type Admission, IngestRateLimiter, type IngestLimits, type IngestLoad } from './rate-limit';

const WHAT: Record<string, string> = {
  events_per_second: 'events per second',
  bytes_per_minute: 'bytes per minute',
  historical_events_per_second: 'historical migration events per second',
};

/** A request over its project's ingestion limit: 429 with Retry-After, nothing appended. */
export class RateLimitedError extends Error {
  readonly status = 429;
  /** Whole seconds, as the Retry-After header wants them (at least 1). */
  readonly retryAfterSeconds: number;

  constructor(
    readonly limit: string,
    /** The exact wait, for a client of this process (the import) that need not round to seconds. */
    readonly retryAfterMs: number,
  ) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super(`Request was throttled: the project is over its ingestion limit of ${WHAT[limit] ?? limit}. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`);
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = seconds;
  }

  /** Django REST framework's throttling body, as PostHog's API answers it. */
  toBody() {
    return { type: 'throttled_error', code: 'throttled', detail: this.message, attr: null };
  }
}

/** Checks a request against its project's limits; throws RateLimitedError when it does not fit. */
export interface AdmitIngest {
  (projectId: number, load: IngestLoad): void;
  /**
   * Consulted before the body is decoded, when the key is known from the query string: throws when
   * the request is refused whatever its body holds, counts nothing (see refusesBeforeBody).
   */
  beforeBody?: (projectId: number, bytes: number) => void;
}

/** One limiter per process for live ingestion (or an import), on the wall clock. */
export function admitWithin(limits: IngestLimits, nowMs: () => number = Date.now): AdmitIngest {
  const limiter = new IngestRateLimiter(limits);
  const refuse = (admission: Admission) => {
    if (!admission.admitted) throw new RateLimitedError(admission.limit, admission.retryAfterMs);
  };
  return Object.assign((projectId: number, load: IngestLoad) => refuse(limiter.admit(projectId, load, nowMs())), {
    beforeBody: (projectId: number, bytes: number) => refuse(limiter.refusesBeforeBody(projectId, bytes, nowMs())),
  });
}

/** The limits as configured (INGEST_EVENTS_PER_SECOND, INGEST_BYTES_PER_MINUTE, INGEST_HISTORICAL_EVENTS_PER_SECOND). */
export const configuredLimits = (config: {
  INGEST_EVENTS_PER_SECOND: number;
  INGEST_BYTES_PER_MINUTE: number;
  INGEST_HISTORICAL_EVENTS_PER_SECOND: number;
}): IngestLimits => ({
  eventsPerSecond: config.INGEST_EVENTS_PER_SECOND,
  bytesPerMinute: config.INGEST_BYTES_PER_MINUTE,
  historicalEventsPerSecond: config.INGEST_HISTORICAL_EVENTS_PER_SECOND,
});
