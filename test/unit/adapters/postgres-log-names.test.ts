import { describe, expect, it } from 'vitest';
import { logNames } from '../../../src/adapters/postgres/event-log/schema';

describe('PostgreSQL event log names', () => {
  it('quotes a valid schema once and derives a distinct lock key and channel per schema', () => {
    const a = logNames('event_log');
    const b = logNames('event_log_2');
    expect(a.events).toBe('"event_log".events');
    expect(a.channel).toBe('event_log_event_log');
    expect(a.lockKey).toMatch(/^-?\d+$/);
    expect(BigInt(a.lockKey)).toBeGreaterThanOrEqual(-(2n ** 63n));
    expect(a.lockKey).not.toBe(b.lockKey);
  });

  it('refuses a schema name that would need escaping, so no query is built from raw input', () => {
    for (const bad of ['', 'Event', 'a-b', 'a"; DROP SCHEMA x; --', '1abc', 'x'.repeat(64)]) {
      expect(() => logNames(bad)).toThrow(/invalid event log schema name/);
    }
  });
});
