import type { EventField, FunctionName, JsonSource } from './ast';
import type { Binder } from './binder';
import { integerTruth, type Dialect } from './compile';

/**
 * SQLite, over an events table with the columns named like the exported fields, JSON kept as
 * TEXT. Column names are always double-quoted: `set` is an SQLite keyword, and quoting makes the
 * whitelist the only source of identifiers.
 */
export const sqliteDialect: Dialect = {
  ...integerTruth,
  field(name: EventField): string {
    // `set` / `set_once` are not stored: PostHog derives them from the event's $set / $set_once.
    if (name === 'set') return `json_extract("properties", '$."$set"')`;
    if (name === 'set_once') return `json_extract("properties", '$."$set_once"')`;
    return `"${name}"`;
  },

  property(source: JsonSource, path: readonly string[], binder: Binder): string {
    return `json_extract("${source}", ${binder.string(jsonPath(path))})`;
  },

  toFloat(sql: string): string {
    return numeric(sql, 'REAL');
  },

  call(name: FunctionName, args: readonly string[]): string {
    const [first] = args;
    switch (name) {
      case 'toString':
        return `CAST(${first} AS TEXT)`;
      case 'toInt':
        return numeric(first, 'INTEGER');
      case 'toFloat':
        return numeric(first, 'REAL');
      case 'lower':
      case 'upper':
        return `${name}(${first})`;
      case 'length':
        // Bytes, as ClickHouse's length() counts; SQLite's length(text) counts characters.
        return `length(CAST(${first} AS BLOB))`;
      case 'coalesce':
        // SQLite's coalesce wants two arguments at least.
        return `coalesce(${args.length === 1 ? `${first}, NULL` : args.join(', ')})`;
    }
  },

  like(left: string, pattern: string, caseInsensitive: boolean, negated: boolean, binder: Binder): string {
    const not = negated ? 'NOT ' : '';
    // SQLite's LIKE ignores ASCII case, so case-sensitive LIKE is rewritten as GLOB.
    if (!caseInsensitive) return `(${left} ${not}GLOB ${binder.string(likeToGlob(pattern))})`;
    return `(${left} ${not}LIKE ${binder.string(pattern)} ESCAPE '\\')`;
  },

  isNull(operand: string, negated: boolean): string {
    return `(${operand} IS ${negated ? 'NOT ' : ''}NULL)`;
  },

  nullSafeEquals(left: string, right: string, negated: boolean): string {
    return `(${left} IS ${negated ? 'NOT ' : ''}${right})`;
  },
};

/**
 * A JSON path selecting `path` key by key. Each key is written as a JSON string (`$."a\"b"`),
 * which SQLite (3.45+) reads back exactly, so dots, brackets, quotes and unicode in property
 * names select the right key. The path is bound as a parameter, never spliced into SQL.
 */
export function jsonPath(path: readonly string[]): string {
  return `$${path.map((key) => `.${JSON.stringify(key)}`).join('')}`;
}

/**
 * ClickHouse's toInt64OrNull / toFloat64OrNull: NULL unless the value is a number or text that
 * is exactly a number (checked as a JSON number, which has no spaces, hex or `inf`). The value is
 * bound once through a correlated sub-select so nesting stays linear in size.
 */
function numeric(sql: string, type: 'INTEGER' | 'REAL'): string {
  const v = 'hogql_v';
  const numberTypes = type === 'INTEGER' ? `'integer'` : `'integer', 'real'`;
  const numericText = `typeof(${v}) = 'text' AND ${v} GLOB '[0-9-]*' AND ${v} GLOB '*[0-9]' AND json_valid(${v}) AND json_type(${v}) IN (${numberTypes})`;
  const exactReal = type === 'INTEGER' ? ` WHEN typeof(${v}) = 'real' AND ${v} = CAST(${v} AS INTEGER) THEN CAST(${v} AS INTEGER)` : '';
  return (
    `(SELECT CASE WHEN typeof(${v}) IN (${numberTypes}) THEN CAST(${v} AS ${type})${exactReal}` +
    ` WHEN ${numericText} THEN CAST(${v} AS ${type}) END FROM (SELECT ${sql} AS ${v}))`
  );
}

/**
 * HogQL LIKE (`%`, `_`, backslash escapes; case-sensitive) as an equivalent GLOB pattern, in
 * which `*`, `?` and `[` are made literal by bracketing them.
 */
export function likeToGlob(pattern: string): string {
  let glob = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\' && i + 1 < chars.length) {
      glob += literalGlobChar(chars[++i]);
    } else if (c === '%') {
      glob += '*';
    } else if (c === '_') {
      glob += '?';
    } else {
      glob += literalGlobChar(c);
    }
  }
  return glob;
}

function literalGlobChar(c: string): string {
  return c === '*' || c === '?' || c === '[' ? `[${c}]` : c;
}
