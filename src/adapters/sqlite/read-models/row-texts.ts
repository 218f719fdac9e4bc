import { columnList, columnTypeOf, type ColumnType, type TableSchema } from '../../../store/sql';
import { rowText } from '../../../store/row-text';

/** Integers JSON writes alike from SQLite's int64 and from the double better-sqlite3 reads it as. */
const SAFE = '9007199254740991';

/**
 * Per declared type, when a value's JSON from json_array is the text `rowText` makes of the value
 * better-sqlite3 reads: null and text always (SQLite escapes strings as JSON.stringify does), an
 * integer within ±2^53; never a real (SQLite writes 30.0 and 15 digits, JavaScript 30 and the
 * shortest round trip) nor a blob (json_array refuses it). A text column converts numbers to text.
 */
const PLAIN: Record<ColumnType, (c: string) => string> = {
  text: (c) => `typeof(${c}) <> 'blob'`,
  integer: (c) => `(typeof(${c}) IN ('null', 'text') OR (typeof(${c}) = 'integer' AND ${c} BETWEEN -${SAFE} AND ${SAFE}))`,
  real: (c) => `${c} IS NULL`,
  blob: (c) => `${c} IS NULL`,
};

/** Marks a row written as (type, value) pairs for `rowFromTagged`; a plain row's JSON starts with '['. */
const TAGGED = 'T';

const statements = new WeakMap<TableSchema, string>();

/**
 * The statement answering `rowTexts` on SQLite: each row's JSON text built by the engine, where every
 * value is plain; any other row as its values' types and exact texts, which `rowText` encodes as
 * better-sqlite3 would read them (rows holding reals, blobs or large integers: few, if any).
 */
export function rowTextsSql(table: TableSchema): string {
  let sql = statements.get(table);
  if (!sql) {
    const columns = Object.entries(table.columns).map(([name, type]) => ({ c: `"${name}"`, type: columnTypeOf(type) }));
    const plain = columns.map(({ c, type }) => PLAIN[type](c)).join(' AND ');
    const tagged = columns
      .map(({ c }) => `typeof(${c}), CASE typeof(${c}) WHEN 'blob' THEN hex(${c}) WHEN 'real' THEN printf('%!.17g', ${c}) WHEN 'integer' THEN CAST(${c} AS TEXT) ELSE ${c} END`)
      .join(', ');
    sql = `SELECT CASE WHEN ${plain} THEN json_array(${columnList(table)}) ELSE '${TAGGED}' || json_array(${tagged}) END FROM "${table.name}" ORDER BY ${table.orderBy}`;
    statements.set(table, sql);
  }
  return sql;
}

/** A row of `rowTextsSql` as `rowText`'s text. */
export function rowTextOf(text: string): string {
  return text.startsWith(TAGGED) ? rowText(rowFromTagged(text.slice(TAGGED.length))) : text;
}

/** The values better-sqlite3 reads, from (type, text) pairs: a real's 17 digits are its exact double. */
function rowFromTagged(json: string): unknown[] {
  const pairs = JSON.parse(json) as (string | null)[];
  const row: unknown[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const value = pairs[i + 1];
    switch (pairs[i]) {
      case 'blob':
        row.push(Buffer.from(value!, 'hex'));
        break;
      case 'real':
      case 'integer':
        row.push(Number(value));
        break;
      default:
        row.push(value);
    }
  }
  return row;
}
