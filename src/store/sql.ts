/** A value bound to a statement's parameter. */
export type SqlValue = string | number | bigint | Buffer | null;

/** A row as an adapter returns it: column name to value (integers and counts as numbers, 0/1 for booleans). */
export type SqlRow = Record<string, unknown>;

/**
 * What a fold or a query talks to: portable SQL with `?` placeholders, answered asynchronously by
 * whichever read-model adapter holds the tables (SQLite embedded, PostgreSQL shared). The SQL written
 * against it keeps to what both engines read the same way; anything engine-specific (JSON access,
 * list parameters, aggregation into JSON, case-insensitive matching) comes from `dialect`.
 */
export interface SqlSession {
  readonly dialect: SqlDialect;
  all<R = SqlRow>(sql: string, ...params: SqlValue[]): Promise<R[]>;
  get<R = SqlRow>(sql: string, ...params: SqlValue[]): Promise<R | undefined>;
  run(sql: string, ...params: SqlValue[]): Promise<{ changes: number }>;
  /** Rows one at a time, as arrays of column values in SELECT order (large reads). */
  stream(sql: string, ...params: SqlValue[]): AsyncIterable<unknown[]>;
  /**
   * Every row of `table`, in its `orderBy` order, as `rowText` (row-text.ts) of its values in the
   * order of `table.columns`: what digests hash. An engine that can build the texts itself does
   * (SQLite's json_array), instead of handing each value over to be encoded one by one.
   */
  rowTexts(table: TableSchema): AsyncIterable<string>;
  /**
   * Inserts `rows` into `table`, each row's values in the order of `table.columns`, in the order
   * given: as one statement where the engine gains by it (PostgreSQL: one round
   * trip and one plan for the lot), else one prepared single-row statement per row (SQLite runs
   * those faster than a multi-row VALUES list, which it compiles into a co-routine).
   */
  insertRows(table: TableSchema, rows: readonly (readonly SqlValue[])[]): Promise<void>;
}

/** The fragments of SQL that differ between engines; each adapter supplies its own. */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * `expr IN (…)` over one parameter holding a JSON array (of texts, or of integers), so a list of any
   * length is one placeholder.
   */
  inJsonArray(expr: string, kind: 'text' | 'integer'): string;
  /** A top-level key of a JSON object held in a text column, as text (null when absent). */
  jsonText(column: string, key: string): string;
  /**
   * A top-level key of a JSON object held in a text column, when its value is a JSON string: that
   * text. Any other value comes back as something that is not a string (SQLite gives numbers and
   * booleans as numbers, PostgreSQL gives null), so text comparisons and string checks agree across
   * engines. The key is one placeholder, bound to `jsonStringKey(key)`.
   */
  jsonString(column: string): string;
  /** The parameter for `jsonString`'s placeholder. */
  jsonStringKey(key: string): string;
  /** Whether text `haystack` contains text `needle` (plain substring, case-sensitive). */
  containsText(haystack: string, needle: string): string;
  /** An aggregate: JSON array text of `expr` over the group's rows in `orderBy` order ('[]' for none). */
  jsonArrayAgg(expr: string, orderBy: string): string;
  /** `expr LIKE pattern` ignoring case (pattern escaped with backslash). */
  likeIgnoringCase(expr: string, pattern: string): string;
  /**
   * `table` read through the named index where the engine takes a hint (SQLite's INDEXED BY, for
   * plans it gets wrong without statistics); the bare table elsewhere. An alias goes in `table`
   * ('events e'): SQLite wants it before the hint.
   */
  indexedBy(table: string, index: string): string;
  /** A statement with one placeholder (a table name) that returns a row when the table exists. */
  readonly tableExists: string;
}

export type ColumnType = 'text' | 'integer' | 'real' | 'blob';

/** A declared column's type without its nullable mark (`'text?'` → `'text'`). */
export const columnTypeOf = (declared: ColumnType | `${ColumnType}?`): ColumnType => declared.replace('?', '') as ColumnType;

/**
 * A read-model table, declared rather than written as DDL so each adapter creates it in its own
 * dialect. Column order is the order of `columns` (digests hash rows in that order).
 */
export interface TableSchema {
  name: string;
  /** Type per column; a trailing `?` allows null. */
  columns: Readonly<Record<string, ColumnType | `${ColumnType}?`>>;
  primaryKey: readonly string[];
  /** Further unique keys. */
  unique?: readonly (readonly string[])[];
  /** Secondary indexes by name. */
  indexes?: Readonly<Record<string, readonly string[]>>;
  /**
   * Those of `indexes` that no fold reads: a replay into a fresh store creates them after its fold
   * (one sort per index, instead of an entry inserted at its place for every row).
   */
  builtAfterReplay?: readonly string[];
  /**
   * Store rows in primary-key order (SQLite WITHOUT ROWID): for tables read mostly by key. Adapters
   * without the notion ignore it.
   */
  clustered?: boolean;
  /** A total order over the rows, so digests are stable. */
  orderBy: string;
}

/** The columns of `table` in its declared order, quoted, as a SELECT or INSERT list. */
export const columnList = (table: TableSchema): string =>
  Object.keys(table.columns)
    .map((c) => `"${c}"`)
    .join(', ');
