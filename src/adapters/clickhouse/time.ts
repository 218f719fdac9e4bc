/*
 * Times are stored as Int64 milliseconds since the epoch. 18.16 has no DateTime64 (20.1) and its
 * DateTime keeps whole seconds; an integer keeps the milliseconds, sorts and compares like the
 * embedded store's canonical ISO text (for years 0000–9999, the only ones toISOString writes
 * without a sign), costs 8 bytes instead of 24, and turns back into the same canonical ISO text.
 */

export function toMs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not a timestamp: ${iso}`);
  return ms;
}

/** From a JSONEachRow Int64 (quoted by the server) or a plain number. */
export function fromMs(value: string | number): string {
  return new Date(Number(value)).toISOString();
}
