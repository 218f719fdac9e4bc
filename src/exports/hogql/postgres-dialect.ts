import type { EventField, FunctionName, JsonSource } from './ast';
import type { Binder } from './binder';
import type { Dialect } from './compile';

/**
 * PostgreSQL, over the same exported-field names as the SQLite dialect, JSON kept as TEXT. Values
 * are read as SQLite's json_extract gives them, as text: a JSON string unquoted, true/false as
 * 1/0, null as NULL, anything else as its JSON text (the `json` type keeps an object's text as
 * stored). Numbers stay text and go through toFloat where compared with numbers, as on ClickHouse.
 */
export const postgresDialect: Dialect = {
  field(name: EventField): string {
    if (name === 'set') return jsonValue(`"properties"::json -> '$set'`);
    if (name === 'set_once') return jsonValue(`"properties"::json -> '$set_once'`);
    return `"${name}"`;
  },

  property(source: JsonSource, path: readonly string[], binder: Binder): string {
    return jsonValue(jsonAt(source, path, binder));
  },

  propertyColumn(source: JsonSource, path: readonly string[], binder: Binder): string {
    return `(${jsonAt(source, path, binder)})::text`;
  },

  toFloat(sql: string): string {
    return numeric(sql, JSON_NUMBER, 'DOUBLE PRECISION');
  },

  call(name: FunctionName, args: readonly string[]): string {
    const [first] = args;
    switch (name) {
      case 'toString':
        return `(CAST(${first} AS TEXT) COLLATE "C")`;
      case 'toInt':
        return numeric(first, JSON_INTEGER, 'BIGINT');
      case 'toFloat':
        return numeric(first, JSON_NUMBER, 'DOUBLE PRECISION');
      case 'lower':
      case 'upper':
        return `${name}(${first})`;
      case 'length':
        // Bytes, as ClickHouse's length() and the SQLite dialect count.
        return `octet_length(CAST(${first} AS TEXT))`;
      case 'coalesce':
        return `coalesce(${args.join(', ')})`;
    }
  },

  like(left: string, pattern: string, caseInsensitive: boolean, negated: boolean, binder: Binder): string {
    return `(${left} ${negated ? 'NOT ' : ''}${caseInsensitive ? 'ILIKE' : 'LIKE'} ${binder.string(pattern)} ESCAPE '\\')`;
  },

  isNull(operand: string, negated: boolean): string {
    return `(${operand} IS ${negated ? 'NOT ' : ''}NULL)`;
  },

  nullSafeEquals(left: string, right: string, negated: boolean): string {
    return `(${left} IS ${negated ? '' : 'NOT '}DISTINCT FROM ${right})`;
  },

  bool: (value) => (value ? 'TRUE' : 'FALSE'),
  conditionOr: (condition, value) => `coalesce(${condition}, ${value ? 'TRUE' : 'FALSE'})`,
  conditionValue: (condition) => `CAST(${condition} AS INTEGER)`,
};

/** The JSON value at `path` (a `json`, NULL when absent); the path is bound as a text array. */
function jsonAt(source: JsonSource, path: readonly string[], binder: Binder): string {
  return `("${source}"::json #> CAST(${binder.string(textArray(path))} AS TEXT[]))`;
}

/** A PostgreSQL array literal of the keys, each quoted, so any character selects itself. */
function textArray(keys: readonly string[]): string {
  return `{${keys.map((key) => `"${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}

/** A JSON value as json_extract gives it, as text; bound once through a sub-select so nesting stays linear. */
function jsonValue(json: string): string {
  const j = 'hogql_j';
  return (
    `(SELECT CASE json_typeof(${j}) WHEN 'string' THEN ${j} #>> '{}' WHEN 'null' THEN NULL` +
    ` WHEN 'boolean' THEN CASE WHEN ${j}::text = 'true' THEN '1' ELSE '0' END ELSE ${j}::text END COLLATE "C"` +
    ` FROM (SELECT ${json} AS ${j}) hogql_s)`
  );
}

// {0,1} rather than ?: the caller numbers the `?` of the statement as placeholders.
const JSON_INTEGER = `'^-{0,1}(0|[1-9][0-9]*)$'`;
const JSON_NUMBER = `'^-{0,1}(0|[1-9][0-9]*)(\\.[0-9]+){0,1}([eE][+-]{0,1}[0-9]+){0,1}$'`;

/** NULL unless the value's text is exactly a JSON number (an integer for BIGINT), the SQLite dialect's rule. */
function numeric(sql: string, pattern: string, type: 'BIGINT' | 'DOUBLE PRECISION'): string {
  const v = 'hogql_v';
  return `(SELECT CASE WHEN ${v} ~ ${pattern} THEN CAST(${v} AS ${type}) END FROM (SELECT CAST(${sql} AS TEXT) AS ${v}) hogql_n)`;
}
