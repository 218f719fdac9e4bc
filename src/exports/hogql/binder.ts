/**
 * Where user values go. Every string from the query text (literals, property names, LIKE
 * patterns) reaches SQL only through a binder, so no compiler ever splices user text into SQL.
 *
 * Parameter and column names are generated with the `hogql_` prefix; a caller embedding the
 * compiled fragments must not use that prefix for its own names.
 */
export interface Binder {
  /** SQL text standing for `value`. */
  string(value: string): string;
  /** SQL text standing for a number literal; `text` always matches the tokenizer's NUMBER form. */
  number(text: string): string;
  readonly params: Record<string, unknown>;
}

export const PARAM_PREFIX = 'hogql_p';
export const COLUMN_PREFIX = 'hogql_c';

/** better-sqlite3 named parameters (`@hogql_p0`), so the caller may mix in its own `?` params. */
export class SqliteBinder implements Binder {
  readonly params: Record<string, string | number | bigint> = {};
  private count = 0;

  string(value: string): string {
    return this.bind(value);
  }

  number(text: string): string {
    const value = numberValue(text);
    // Integers past 2^53 would be rounded as a JS number; SQLite takes them exactly as BigInt.
    return this.bind(typeof value === 'bigint' && (value > MAX_SAFE || value < -MAX_SAFE) ? value : Number(value));
  }

  protected bind(value: string | number | bigint): string {
    const name = `${PARAM_PREFIX}${this.count++}`;
    this.params[name] = value;
    return `@${name}`;
  }
}

/**
 * The same named parameters for PostgreSQL, each cast to its type (a bare parameter has none
 * there); the caller turns `@hogql_pN` into its driver's placeholders. Texts compare byte-wise
 * (the "C" collation), as SQLite's do.
 */
export class PostgresBinder extends SqliteBinder {
  override string(value: string): string {
    return `(CAST(${this.bind(value)} AS TEXT) COLLATE "C")`;
  }

  override number(text: string): string {
    const value = numberValue(text);
    return typeof value === 'bigint' ? `CAST(${this.bind(value)} AS BIGINT)` : `CAST(${this.bind(value)} AS DOUBLE PRECISION)`;
  }
}

/**
 * ClickHouse 18.16 has no query parameters (`{name:Type}` arrived in 19.x; 18.16 answers
 * "Unknown setting param_..."), so values are inlined as escaped literals. The escaping covers
 * every character ClickHouse's lexer treats specially inside '...'.
 */
export class ClickHouseLiteralBinder implements Binder {
  readonly params: Record<string, string> = {};

  string(value: string): string {
    return clickHouseString(value);
  }

  number(text: string): string {
    return numberValue(text).toString();
  }
}

/** For ClickHouse 19.x and later, which bind `{hogql_p0:String}` from `param_hogql_p0`. */
export class ClickHouseParamBinder implements Binder {
  readonly params: Record<string, string> = {};
  private count = 0;

  string(value: string): string {
    return this.bind(value, 'String');
  }

  number(text: string): string {
    const value = numberValue(text);
    return this.bind(value.toString(), typeof value === 'bigint' ? 'Int64' : 'Float64');
  }

  private bind(value: string, type: string): string {
    const name = `${PARAM_PREFIX}${this.count++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The value of a number literal: a bigint when it is an integer that fits Int64, else a finite
 * float. Printed back with toString(), this never has the leading zeros ClickHouse reads as
 * octal (`012` is 10 there) nor the leading dot it cannot parse (`.5`).
 */
export function numberValue(text: string): bigint | number {
  if (/^-?\d+$/.test(text)) {
    const value = BigInt(text);
    if (value >= INT64_MIN && value <= INT64_MAX) return value;
  }
  return Number(text);
}

const CLICKHOUSE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
};

export function clickHouseString(value: string): string {
  return `'${value.replace(/[\\'\n\r\t\0\b\f]/g, (c) => CLICKHOUSE_ESCAPES[c])}'`;
}
