/**
 * What any JSON body must satisfy before it may reach the log: nested at most MAX_JSON_DEPTH levels
 * deep, and every string (keys included) encodable as UTF-8. Lone UTF-16 surrogates (which a JSON
 * `\ud800` escape or an lz-string payload can produce) are replaced with U+FFFD, as
 * String.prototype.toWellFormed does: such a string cannot be stored faithfully, and once logged it
 * broke every fold that encodes it (UUIDv5 person ids threw `URI malformed`).
 */

/** Containers (objects, arrays) nested deeper than this are refused: `{}` is one level. */
export const MAX_JSON_DEPTH = 64;

export class JsonTooDeepError extends Error {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * Whether the text holds a `\uD800`–`\uDFFF` escape: only these can make JSON.parse return a string
 * that is not well-formed. indexOf skips ahead far faster than a regular expression on large bodies.
 */
function hasSurrogateEscape(text: string): boolean {
  for (let i = text.indexOf('\\u'); i !== -1; i = text.indexOf('\\u', i + 2)) {
    const d = text.charCodeAt(i + 2);
    const h = text.charCodeAt(i + 3);
    // d|D, then 8, 9, a-f or A-F
    if ((d === 100 || d === 68) && ((h >= 56 && h <= 57) || (h >= 97 && h <= 102) || (h >= 65 && h <= 70))) return true;
  }
  return false;
}

/** The text with any lone surrogate replaced; the same string (no copy) in the usual case. */
export function wellFormedText(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed();
}

/**
 * Checks a value JSON.parse returned for `text` (already well-formed, see wellFormedText): throws
 * JsonTooDeepError past the depth limit; returns the value with lone surrogates replaced. The
 * string walk runs only when the text holds a surrogate escape, so most bodies pay a depth walk
 * over containers alone.
 */
export function checkParsedJson(value: unknown, text: string): unknown {
  if (hasSurrogateEscape(text)) return repair(value, 1);
  checkDepth(value, 1);
  return value;
}

function checkDepth(value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) checkDepth(item, depth + 1);
    }
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    const item = object[key];
    if (typeof item === 'object' && item !== null) checkDepth(item, depth + 1);
  }
}

function repair(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = repair(value[i], depth + 1);
    return value;
  }
  const object = value as Record<string, unknown>;
  let badKey = false;
  for (const key in object) {
    object[key] = repair(object[key], depth + 1);
    if (!key.isWellFormed()) badKey = true;
  }
  if (!badKey) return object;
  // Rebuilt in key order; defineProperty so that a `__proto__` key stays a plain property, as JSON.parse makes it.
  const rebuilt: Record<string, unknown> = {};
  for (const key in object) {
    Object.defineProperty(rebuilt, key.toWellFormed(), { value: object[key], enumerable: true, writable: true, configurable: true });
  }
  return rebuilt;
}
