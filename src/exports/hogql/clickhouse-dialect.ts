import type { EventField, FunctionName, JsonSource } from './ast';
import { clickHouseString } from './binder';
import type { Binder } from './binder';
import { integerTruth, type Dialect } from './compile';

/**
 * ClickHouse 18.16 (Debian's package), over an events table whose JSON columns are Strings.
 * That release has no JSONExtract*, no ILIKE, no toJSONString, no accurateCastOrNull and no
 * query parameters; everything below exists there and was checked against it.
 */
export const clickHouseDialect: Dialect = {
  ...integerTruth,
  field(name: EventField): string {
    if (name === 'set') return `nullIf(visitParamExtractRaw(properties, '$set'), '')`;
    if (name === 'set_once') return `nullIf(visitParamExtractRaw(properties, '$set_once'), '')`;
    return name;
  },

  /**
   * visitParamExtract* look for the bytes `"<name>":`, so the name is passed JSON-escaped (as
   * JSON.stringify wrote it into the column). A string value is read with
   * visitParamExtractString (unescaped); anything else as its raw JSON text; null or a missing
   * key gives NULL. Whether the value is a string is decided from the byte after the key, not
   * from visitParamExtractRaw, which in 18.16 returns '' for any string holding `{`, `[` or a
   * trailing escaped backslash. Nested paths extract the raw object level by level.
   *
   * Known limits of 18.16: visitParam matches the first `"name":` anywhere in the text, nested
   * objects included; and an object value (or a nested level) that contains such a string reads
   * as NULL.
   */
  property(source: JsonSource, path: readonly string[], binder: Binder): string {
    const { object, key, at, next } = located(source, path, binder);
    return (
      `multiIf(${at} = 0, NULL, ${next} = '"', ` +
      `visitParamExtractString(${object}, ${key}), nullIf(nullIf(visitParamExtractRaw(${object}, ${key}), ''), 'null'))`
    );
  },

  toFloat(sql: string): string {
    return toNumber(sql, 'Float64');
  },

  call(name: FunctionName, args: readonly string[]): string {
    const [first] = args;
    switch (name) {
      case 'toString':
        return `toString(${first})`;
      case 'toInt':
        return toNumber(first, 'Int64');
      case 'toFloat':
        return toNumber(first, 'Float64');
      // toString first: SQLite applies these to numbers too, ClickHouse would refuse.
      case 'lower':
      case 'upper':
      case 'length':
        return `${name}(toString(${first}))`;
      case 'coalesce':
        return `coalesce(${args.join(', ')})`;
    }
  },

  like(left: string, pattern: string, caseInsensitive: boolean, negated: boolean, binder: Binder): string {
    const operator = negated ? 'NOT LIKE' : 'LIKE';
    const bound = binder.string(pattern);
    if (!caseInsensitive) return `(toString(${left}) ${operator} ${bound})`;
    return `(lowerUTF8(toString(${left})) ${operator} lowerUTF8(${bound}))`;
  },

  isNull(operand: string, negated: boolean): string {
    return `${negated ? 'isNotNull' : 'isNull'}(${operand})`;
  },

  // 18.16 has no `<=>` / isNotDistinctFrom, but has() compares NULL as a value.
  nullSafeEquals(left: string, right: string, negated: boolean): string {
    const has = `has([${left}], ${right})`;
    return negated ? `(NOT ${has})` : has;
  },
};

/**
 * Where the last key of `path` is in the JSON text of `source`: the object holding it (nested levels
 * extracted raw), the key as bound, its position (0: absent) the byte after its colon and the text from there.
 */
function located(source: JsonSource, path: readonly string[], binder: Binder) {
  let object: string = source;
  for (const key of path.slice(0, -1)) {
    object = `visitParamExtractRaw(${object}, ${binder.string(jsonEscaped(key))})`;
  }
  const last = jsonEscaped(path[path.length - 1]);
  const key = binder.string(last);
  const needle = binder.string(`"${last}":`);
  const at = `position(${object}, ${needle})`;
  return { object, key, at, next: `substring(${object}, ${at} + length(${needle}), 1)`, after: `substring(${object}, ${at} + length(${needle}))` };
}

/**
 * A condition true when a level of `path` is in the text but 18.16 cannot read it: the key is there,
 * its value is not a string, and visitParamExtractRaw answered '' (it does for an object or array
 * holding a string with `{`, `[` or an escaped trailing backslash). Never true on current engines.
 */
function unreadable(source: JsonSource, path: readonly string[], literal: (text: string) => string): string {
  const guards: string[] = [];
  let object: string = source;
  for (const key of path) {
    const escaped = jsonEscaped(key);
    const needle = literal(`"${escaped}":`);
    const at = `position(${object}, ${needle})`;
    const raw = `visitParamExtractRaw(${object}, ${literal(escaped)})`;
    guards.push(`(${at} > 0 AND substring(${object}, ${at} + length(${needle}), 1) != '"' AND ${raw} = '')`);
    object = raw;
  }
  return guards.join(' OR ');
}

/**
 * `value`, or the query fails (throwIf, which the export source reports as UNREADABLE_PROPERTY)
 * when a row's property cannot be read: an export must not carry NULL where SQLite has a value.
 */
// ifNull: on a NULL source (person_properties of an event without a person) the condition is NULL,
// and current ClickHouse's throwIf looks at the value under a NULL (seen failing on chDB 26).
const guarded = (value: string, source: JsonSource, path: readonly string[], literal: (text: string) => string) =>
  `if(throwIf(ifNull(${unreadable(source, path, literal)}, 0)) = 0, ${value}, NULL)`;

/** What the export source says when a guarded property failed the query. */
export const UNREADABLE_PROPERTY =
  'a property of this hogql_query is an object or array holding a string with `{`, `[` or a trailing backslash, which ClickHouse 18.16 cannot read (visitParamExtractRaw); the run fails rather than export NULL where the value is';

/** A JSON string literal at the start of the text, escapes kept (one capturing group: extract() returns it). */
const JSON_STRING_AT_START = clickHouseString('^("(?:[^"\\\\]|\\\\.)*")');

/**
 * The dialect as the export source on ClickHouse uses it. A property selected as a column is its
 * JSON text (CompiledColumn.decode `jsonScalar`), so the reader exports it as SQLite's json_extract
 * gives it (numbers as numbers, true/false as 1/0); a string's text is cut out of the stored JSON
 * with its escapes (visitParamExtractRaw gives '' for some strings in 18.16); null or a missing key
 * gives NULL. Every property read, in columns and conditions, fails the query where 18.16 cannot
 * read it, instead of reading NULL. The first `"name":` anywhere still wins, as in `property`.
 */
export const clickHouseExportDialect: Dialect = {
  ...clickHouseDialect,
  // `set` / `set_once` read $set / $set_once raw: guarded the same way (fixed names, written inline).
  field(name: EventField): string {
    const value = clickHouseDialect.field(name);
    if (name === 'set') return guarded(value, 'properties', ['$set'], clickHouseString);
    if (name === 'set_once') return guarded(value, 'properties', ['$set_once'], clickHouseString);
    return value;
  },
  property(source: JsonSource, path: readonly string[], binder: Binder): string {
    return guarded(clickHouseDialect.property(source, path, binder), source, path, (text) => binder.string(text));
  },
  propertyColumn(source: JsonSource, path: readonly string[], binder: Binder): string {
    const { object, key, at, next, after } = located(source, path, binder);
    const value =
      `multiIf(${at} = 0, NULL, ${next} = '"', ` +
      `nullIf(extract(${after}, ${JSON_STRING_AT_START}), ''), nullIf(nullIf(visitParamExtractRaw(${object}, ${key}), ''), 'null'))`;
    return guarded(value, source, path, (text) => binder.string(text));
  },
};

const JSON_INTEGER = clickHouseString('^-?(?:0|[1-9][0-9]*)$');
const JSON_NUMBER = clickHouseString('^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$');

/**
 * NULL unless the value's text is exactly a JSON number (an integer for Int64), the rule the
 * SQLite dialect applies too; toFloat64OrNull alone would also take `inf`, `nan` and `0x10`.
 * extract() yields '' on no match, which the OrNull conversion turns into NULL.
 */
function toNumber(sql: string, type: 'Int64' | 'Float64'): string {
  return `to${type}OrNull(extract(toString(${sql}), ${type === 'Int64' ? JSON_INTEGER : JSON_NUMBER}))`;
}

/** The key as it appears between the quotes of a JSON.stringify'd object. */
function jsonEscaped(key: string): string {
  return JSON.stringify(key).slice(1, -1);
}
