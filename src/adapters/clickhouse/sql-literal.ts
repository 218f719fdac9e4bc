/*
 * Literals for ClickHouse SQL. 18.16 has no server-side query parameters, so every value a read
 * filters on is written into the statement: strings quoted with backslash escapes (ClickHouse's
 * string syntax), numbers only when they are finite integers.
 */

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\\0', '\b': '\\b', '\f': '\\f' };

export function str(value: string): string {
  return `'${value.replace(/[\\'\n\r\t\0\b\f]/g, (c) => ESCAPES[c])}'`;
}

export function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
  return String(value);
}

/** `(a, b, …)` for IN; never empty (an empty IN list is a syntax error), so callers check first. */
export function strList(values: readonly string[]): string {
  return `(${values.map(str).join(', ')})`;
}
