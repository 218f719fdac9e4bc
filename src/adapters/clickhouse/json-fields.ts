import { str } from './sql-literal';

/*
 * Top-level properties of the JSON text in `properties`, with what 18.16 has: visitParamExtract*
 * (no JSONExtract before 19.8). Those look for the bytes `"<name>":`, so the name is given
 * JSON-escaped, as JSON.stringify wrote it. Whether the value is a JSON string is read from the
 * byte after the key rather than from visitParamExtractRaw, which in 18.16 answers '' for a string
 * holding `{`, `[` or an escaped trailing backslash (found by the HogQL dialect, same server).
 * Limit: the first `"<name>":` anywhere in the text wins, nested objects included.
 */

function located(column: string, key: string) {
  const escaped = JSON.stringify(key).slice(1, -1);
  const needle = str(`"${escaped}":`);
  const at = `position(${column}, ${needle})`;
  return { name: str(escaped), at, next: `substring(${column}, ${at} + length(${needle}), 1)` };
}

/** The value when it is a JSON string, else NULL (as the PostgreSQL dialect's jsonString). */
export function stringProperty(column: string, key: string): string {
  const k = located(column, key);
  return `multiIf(${k.at} = 0, NULL, ${k.next} = '"', visitParamExtractString(${column}, ${k.name}), NULL)`;
}

/** The value as text (strings unescaped, others as their JSON), NULL when absent or null (as `->>`). */
export function textProperty(column: string, key: string): string {
  const k = located(column, key);
  return (
    `multiIf(${k.at} = 0, NULL, ${k.next} = '"', visitParamExtractString(${column}, ${k.name}), ` +
    `nullIf(nullIf(visitParamExtractRaw(${column}, ${k.name}), ''), 'null'))`
  );
}
