import type { SqlSession, SqlValue, TableSchema } from '../../store/sql';

/** Identifiers (tables and their indexes) and the names they stand for in this session. */
export type Renames = ReadonlyMap<string, string>;

/** Single-quoted literals (never renamed) apart from the rest of a statement. */
const LITERALS = /('(?:[^']|'')*')/;
/** A double-quoted identifier, or a bare word not qualified by a dot. */
const IDENTIFIER = /"([A-Za-z_]\w*)"|(?<![.\w$])([A-Za-z_]\w*)\b/g;

/** `sql` with every identifier named in `renames` replaced (quoted or not), literals untouched. */
export function renameInSql(sql: string, renames: Renames): string {
  return sql
    .split(LITERALS)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(IDENTIFIER, (whole, quoted: string | undefined, bare: string | undefined) => {
            const to = renames.get(quoted ?? bare!);
            return to === undefined ? whole : quoted !== undefined ? `"${to}"` : to;
          }),
    )
    .join('');
}

/** A table schema under its side-by-side name, its indexes too (index names are per database). */
export function renamedSchema(table: TableSchema, suffix: string): TableSchema {
  return {
    ...table,
    name: `${table.name}${suffix}`,
    indexes: table.indexes && Object.fromEntries(Object.entries(table.indexes).map(([name, columns]) => [`${name}${suffix}`, columns])),
  };
}

/** A fold's statements are a few dozen texts: each is rewritten once. */
const MAX_CACHED = 4096;

/**
 * A session whose statements read and write the renamed tables: a projection folds into the tables
 * of its next version, built side by side, without knowing. One per underlying session's `get`
 * (folds that keep caches per store tell stores apart by it), re-aimed at each transaction's session.
 */
export class RenamedSessions {
  private readonly texts = new Map<string, string>();
  private readonly schemas = new Map<TableSchema, TableSchema>();
  private readonly sessions = new WeakMap<object, { session: SqlSession; inner: SqlSession }>();

  constructor(
    private readonly renames: Renames,
    private readonly tables: ReadonlyMap<string, TableSchema>,
  ) {}

  of(inner: SqlSession): SqlSession {
    let entry = this.sessions.get(inner.get);
    if (!entry) {
      const sql = (text: string) => this.sql(text);
      const current = () => entry!.inner;
      const session: SqlSession = {
        dialect: inner.dialect,
        all: <R>(text: string, ...params: SqlValue[]) => current().all<R>(sql(text), ...params),
        get: <R>(text: string, ...params: SqlValue[]) => current().get<R>(sql(text), ...params),
        run: (text: string, ...params: SqlValue[]) => current().run(sql(text), ...params),
        stream: (text: string, ...params: SqlValue[]) => current().stream(sql(text), ...params),
        rowTexts: (table: TableSchema) => current().rowTexts(this.schema(table)),
        insertRows: (table: TableSchema, rows: readonly (readonly SqlValue[])[]) => current().insertRows(this.schema(table), rows),
      };
      entry = { session, inner };
      this.sessions.set(inner.get, entry);
    }
    entry.inner = inner;
    return entry.session;
  }

  private sql(text: string): string {
    let renamed = this.texts.get(text);
    // Stryker disable next-line ConditionalExpression: equivalent, a text renamed again reads the same
    if (renamed === undefined) {
      renamed = renameInSql(text, this.renames);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, only how much the cache holds
      if (this.texts.size >= MAX_CACHED) this.texts.clear();
      this.texts.set(text, renamed);
    }
    return renamed;
  }

  private schema(table: TableSchema): TableSchema {
    let renamed = this.schemas.get(table);
    // Stryker disable next-line ConditionalExpression: equivalent, a schema looked up again is the same
    if (!renamed) {
      renamed = this.tables.get(table.name) ?? table;
      this.schemas.set(table, renamed);
    }
    return renamed;
  }
}
