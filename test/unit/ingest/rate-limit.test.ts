import { describe, expect, it } from 'vitest';
import { IngestRateLimiter, TokenBucket } from '../../../src/ingest/rate-limit';
import { admitWithin, RateLimitedError } from '../../../src/ingest/rate-limited';

const limits = { eventsPerSecond: 10, bytesPerMinute: 6000, historicalEventsPerSecond: 4 };
const live = (events: number, bytes = 1) => ({ events, bytes, historical: false });

describe('TokenBucket', () => {
  it('holds a burst, refills continuously and says how long until an amount fits', () => {
    const b = new TokenBucket(10, 10 / 1000, 0);
    expect(b.waitFor(10, 0)).toBe(0);
    b.take(10, 0);
    expect(b.waitFor(1, 0)).toBe(100);
    expect(b.waitFor(1, 100)).toBe(0);
    expect(b.waitFor(5, 100)).toBe(400);
    // Never more than the burst, however long idle.
    expect(b.waitFor(10, 1_000_000)).toBe(0);
    b.take(10, 1_000_000);
    expect(b.waitFor(1, 1_000_000)).toBe(100);
  });

  it('admits an amount larger than its burst when full, leaving it in debt', () => {
    const b = new TokenBucket(10, 10 / 1000, 0);
    expect(b.waitFor(25, 0)).toBe(0);
    b.take(25, 0);
    expect(b.waitFor(1, 0)).toBe(1600);
    expect(b.waitFor(25, 2500)).toBe(0);
  });

  it('ignores a clock stepping back', () => {
    const b = new TokenBucket(10, 10 / 1000, 1000);
    b.take(10, 1000);
    expect(b.waitFor(1, 500)).toBe(100);
    expect(b.waitFor(1, 1100)).toBe(0);
  });
});

describe('IngestRateLimiter', () => {
  it('limits events per second per project, one burst of a second', () => {
    const l = new IngestRateLimiter(limits);
    expect(l.admit(1, live(10), 0)).toEqual({ admitted: true });
    expect(l.admit(1, live(1), 0)).toEqual({ admitted: false, limit: 'events_per_second', retryAfterMs: 100 });
    // Another project has its own budget.
    expect(l.admit(2, live(10), 0)).toEqual({ admitted: true });
    expect(l.admit(1, live(5), 500)).toEqual({ admitted: true });
  });

  it('limits bytes per minute, and a refused request takes nothing from any budget', () => {
    const l = new IngestRateLimiter(limits);
    expect(l.admit(1, live(1, 5000), 0).admitted).toBe(true);
    expect(l.admit(1, live(1, 2000), 0)).toEqual({ admitted: false, limit: 'bytes_per_minute', retryAfterMs: 10_000 });
    // The refused request's one event was not counted: nine more still fit in this second.
    expect(l.admit(1, live(9, 10), 0).admitted).toBe(true);
    expect(l.admit(1, live(1, 10), 0).admitted).toBe(false);
  });

  it('limits historical migration on its own budget, apart from live traffic', () => {
    const l = new IngestRateLimiter(limits);
    expect(l.admit(1, live(10), 0).admitted).toBe(true);
    const historical = { events: 4, bytes: 100_000, historical: true };
    expect(l.admit(1, historical, 0)).toEqual({ admitted: true });
    expect(l.admit(1, historical, 0)).toEqual({ admitted: false, limit: 'historical_events_per_second', retryAfterMs: 1000 });
    expect(l.admit(1, live(1), 100).admitted).toBe(true);
  });
});

describe('admitWithin', () => {
  it('throws RateLimitedError with whole seconds of Retry-After and the throttled error shape', () => {
    let now = 0;
    const admit = admitWithin(limits, () => now);
    admit(1, live(10));
    let err: unknown;
    try {
      admit(1, live(1));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RateLimitedError);
    const limited = err as RateLimitedError;
    expect(limited.retryAfterSeconds).toBe(1);
    expect(limited.toBody()).toEqual({ type: 'throttled_error', code: 'throttled', detail: expect.stringMatching(/events per second.*1 second\./), attr: null });
    now = 100;
    expect(() => admit(1, live(1))).not.toThrow();
  });
});
