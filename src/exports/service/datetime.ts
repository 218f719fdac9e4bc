/**
 * ISO 8601 as Python's `datetime.fromisoformat` reads it (PostHog parses backfill bounds with it):
 * a date, optionally a time with optional seconds and fraction, optionally `Z` or an offset.
 * Without an offset the value is "naive".
 */
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

export interface ParsedDateTime {
  ms: number;
  aware: boolean;
}

export function parseIsoDateTime(value: unknown): ParsedDateTime | null {
  if (typeof value !== 'string') return null;
  const m = ISO.exec(value.trim());
  if (!m) return null;
  const [, date, time = '00:00:00', zone] = m;
  let offset = 'Z';
  if (zone && zone !== 'Z') {
    const digits = zone.replace(':', '');
    offset = `${digits.slice(0, 3)}:${digits.slice(3, 5) || '00'}`;
  }
  const hms = time.length === 5 ? `${time}:00` : time;
  // Date.parse keeps milliseconds; finer fractions are truncated.
  const [whole, fraction = ''] = hms.split('.');
  const ms = Date.parse(`${date}T${whole}.${fraction.padEnd(3, '0').slice(0, 3)}${offset}`);
  if (Number.isNaN(ms)) return null;
  return { ms, aware: zone !== undefined };
}

/** Python's isoformat() of a UTC datetime, as PostHog quotes dates back in its messages. */
export function pythonIso(ms: number): string {
  const d = new Date(ms);
  const micros = d.getUTCMilliseconds() * 1000;
  return d.toISOString().slice(0, 19) + (micros ? `.${String(micros).padStart(6, '0')}` : '') + '+00:00';
}
