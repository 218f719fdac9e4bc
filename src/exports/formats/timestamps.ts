const FRACTION = /\.(\d{4,})/;

/**
 * Epoch microseconds of an ISO 8601 string, or null when it does not parse. Date.parse keeps
 * milliseconds only, so fraction digits 4–6 are added back; the millisecond value is already
 * floored, which keeps this right before 1970 too.
 */
export function isoToMicros(iso: string): number | null {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  const fraction = FRACTION.exec(iso);
  const extra = fraction ? Number(fraction[1].slice(3, 6).padEnd(3, '0')) : 0;
  return ms * 1000 + extra;
}
