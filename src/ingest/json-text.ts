export type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * JSON.parse, plus the bare `NaN` / `Infinity` / `-Infinity` tokens that Python's json module
 * emits by default (posthog-python sends them for float properties); they become `null`, as in
 * PostHog's capture.
 */
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    try {
      const repaired = replaceNonFiniteTokens(text);
      if (repaired === text) return { ok: false, reason };
      return { ok: true, value: JSON.parse(repaired) };
    } catch {
      return { ok: false, reason };
    }
  }
}

const NON_FINITE = /-Infinity|Infinity|NaN/;
const STRING_OR_NON_FINITE = /"[^"\\]*(?:\\.[^"\\]*)*"|-Infinity|Infinity|NaN/g;

function replaceNonFiniteTokens(text: string): string {
  if (!NON_FINITE.test(text)) return text;
  // Strings are matched whole so that a token inside a string value is left alone.
  return text.replace(STRING_OR_NON_FINITE, (match) => (match.startsWith('"') ? match : 'null'));
}
