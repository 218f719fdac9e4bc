import { hasFourDigitYear } from './parse-date';

const FUTURE_CUTOFF_MS = 23 * 3600 * 1000;

export type TimestampSource = 'sent_at_skew' | 'offset' | 'timestamp' | 'now';

export interface TimestampInput {
  /** Server receive time. */
  now: Date;
  /** The event's parsed `timestamp`, epoch ms. */
  timestampMs: number | undefined;
  /** The event's `offset`: how many ms before sending the event happened. */
  offsetMs: number | undefined;
  /** The client's send time in effect, epoch ms; undefined when absent or `$ignore_sent_at`. */
  sentAtMs: number | undefined;
}

export interface ResolvedTimestamp {
  timestamp: Date;
  source: TimestampSource;
  /** True when the result was replaced by `now` (too far in the future, or not representable). */
  clamped: boolean;
}

/**
 * Client clocks are wrong; the server's is trusted. With both the event time and the send time
 * from the same client clock, their difference is exact, so it is re-anchored on `now`.
 */
export function resolveTimestamp(input: TimestampInput): ResolvedTimestamp {
  const now = input.now.getTime();
  const { ms, source } = pick(input, now);
  if (ms - now > FUTURE_CUTOFF_MS || !hasFourDigitYear(ms)) {
    return { timestamp: new Date(now), source, clamped: true };
  }
  return { timestamp: new Date(ms), source, clamped: false };
}

function pick(input: TimestampInput, now: number): { ms: number; source: TimestampSource } {
  const { timestampMs, sentAtMs, offsetMs } = input;
  if (timestampMs !== undefined && sentAtMs !== undefined) {
    return { ms: now + (timestampMs - sentAtMs), source: 'sent_at_skew' };
  }
  if (offsetMs !== undefined) return { ms: now - offsetMs, source: 'offset' };
  if (timestampMs !== undefined) return { ms: timestampMs, source: 'timestamp' };
  return { ms: now, source: 'now' };
}

