/** Coercions shared by the property operators, following the flags service's JSON rules. */

/** Strings as-is; everything else as its JSON text (so null is "null", true is "true"). */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  // Not JSON's text for numbers: NaN and Infinity would be "null".
  if (typeof value === 'number') return String(value);
  // Stryker disable next-line all: equivalent, a shortcut: JSON.stringify gives booleans the same text, and bigints reach String(value) through the catch
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Circular or otherwise unserialisable values still need some text to compare against.
    return String(value);
  }
}

/** Only ASCII letters are folded, as the flags service does for substring operators. */
export function asciiLower(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
}

/**
 * A finite number when the value is a number or a string that is entirely a decimal number.
 * Partial parses ("12abc") are rejected so they fall back to string comparison.
 */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return null;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : null;
}

/** Booleans, "true"/"false" in any case, or non-empty lists of those. */
export function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false';
  }
  return Array.isArray(value) && value.length > 0 && value.every(isBooleanLike);
}

export function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  return Array.isArray(value) && value.length > 0 && value.every(isTruthy);
}
