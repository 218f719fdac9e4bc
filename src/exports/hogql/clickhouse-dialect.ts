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
    let object: string = source;
    for (const key of path.slice(0, -1)) {
      object = `visitParamExtractRaw(${object}, ${binder.string(jsonEscaped(key))})`;
    }
    const last = jsonEscaped(path[path.length - 1]);
    const key = binder.string(last);
    const needle = binder.string(`"${last}":`);
    const at = `position(${object}, ${needle})`;
    return (
      `multiIf(${at} = 0, NULL, substring(${object}, ${at} + length(${needle}), 1) = '"', ` +
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
