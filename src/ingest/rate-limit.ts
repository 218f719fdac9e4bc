/**
 * Per-project ingestion limits, pure: the caller passes the time. Each limit is a token bucket that
 * holds at most its burst and refills continuously; a request is admitted when every bucket it
 * draws from can cover it, and then (only then) takes from all of them, so a refused request costs
 * nothing. A request larger than a bucket's burst is admitted when that bucket is full, leaving it in
 * debt: otherwise a /batch/ bigger than one second's worth could never get through.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  /** `burst` tokens at most, refilled at `perMs` tokens per millisecond. */
  constructor(
    private readonly burst: number,
    private readonly perMs: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.at = nowMs;
  }

  /** Milliseconds until `amount` could be taken (0: it can be now). */
  waitFor(amount: number, nowMs: number): number {
    this.refill(nowMs);
    const needed = Math.min(amount, this.burst);
    return this.tokens >= needed ? 0 : Math.ceil((needed - this.tokens) / this.perMs);
  }

  take(amount: number, nowMs: number): void {
    this.refill(nowMs);
    this.tokens -= amount;
  }

  private refill(nowMs: number) {
    // A clock that steps back refills nothing rather than draining the bucket.
    if (nowMs > this.at) {
      this.tokens = Math.min(this.burst, this.tokens + (nowMs - this.at) * this.perMs);
      this.at = nowMs;
    }
  }
}

export interface IngestLimits {
  /** Live events per second (burst: one second's worth). */
  eventsPerSecond: number;
  /** Request bytes per minute, as received (burst: one minute's worth). */
  bytesPerMinute: number;
  /** Historical-migration events per second, a budget apart from live traffic (burst: one second's worth). */
  historicalEventsPerSecond: number;
}

/** What one request asks of its project's limits. */
export interface IngestLoad {
  events: number;
  bytes: number;
  historical: boolean;
}

export type LimitName = 'events_per_second' | 'bytes_per_minute' | 'historical_events_per_second';

export type Admission = { admitted: true } | { admitted: false; limit: LimitName; retryAfterMs: number };

interface ProjectBuckets {
  events?: TokenBucket;
  bytes?: TokenBucket;
  historical?: TokenBucket;
}

export class IngestRateLimiter {
  private readonly projects = new Map<number, ProjectBuckets>();

  constructor(private readonly limits: IngestLimits) {}

  /**
   * Admits the request and counts it, or says which limit refuses it and after how long it would
   * fit. Historical migration draws only from its own budget (PostHog never throttles it with
   * live traffic); live requests draw from the events and the bytes budgets.
   */
  admit(projectId: number, load: IngestLoad, nowMs: number): Admission {
    const p = this.projects.get(projectId) ?? this.projects.set(projectId, {}).get(projectId)!;
    const l = this.limits;
    const draws: [LimitName, TokenBucket, number][] = load.historical
      ? [['historical_events_per_second', (p.historical ??= new TokenBucket(l.historicalEventsPerSecond, l.historicalEventsPerSecond / 1000, nowMs)), load.events]]
      : [
          ['events_per_second', (p.events ??= new TokenBucket(l.eventsPerSecond, l.eventsPerSecond / 1000, nowMs)), load.events],
          ['bytes_per_minute', (p.bytes ??= new TokenBucket(l.bytesPerMinute, l.bytesPerMinute / 60_000, nowMs)), load.bytes],
        ];
    for (const [limit, bucket, amount] of draws) {
      const wait = bucket.waitFor(amount, nowMs);
      if (wait > 0) return { admitted: false, limit, retryAfterMs: wait };
    }
    for (const [, bucket, amount] of draws) bucket.take(amount, nowMs);
    return { admitted: true };
  }

  /**
   * Before the body is decoded (its events and historical flag unknown): the refusal a request of
   * `bytes` meets whatever it holds, or admitted when some content could fit. It counts nothing;
   * `admit` counts once the body is known. Certain only when the live budgets cannot take one
   * event of these bytes AND the historical budget cannot take one event.
   */
  refusesBeforeBody(projectId: number, bytes: number, nowMs: number): Admission {
    const p = this.projects.get(projectId);
    if (p === undefined) return { admitted: true };
    const live: [LimitName, TokenBucket | undefined, number][] = [
      ['events_per_second', p.events, 1],
      ['bytes_per_minute', p.bytes, bytes],
    ];
    let refusal: Admission = { admitted: true };
    for (const [limit, bucket, amount] of live) {
      const wait = bucket?.waitFor(amount, nowMs) ?? 0;
      if (wait > 0) {
        refusal = { admitted: false, limit, retryAfterMs: wait };
        break;
      }
    }
    if (refusal.admitted) return refusal;
    const historicalWait = p.historical?.waitFor(1, nowMs) ?? 0;
    return historicalWait > 0 ? refusal : { admitted: true };
  }
}
