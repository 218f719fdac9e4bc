import { decodeBase64Text } from './base64';
import { malformedRequest, noData } from './errors';
import { checkParsedJson, JsonTooDeepError, wellFormedText } from './json-limits';
import { parseJson } from './json-text';

/**
 * A decoded body's text to its JSON value, checked (depth limit, lone surrogates: json-limits).
 * Shared by the event loop (small bodies) and the decode thread (large ones), so both accept and
 * refuse exactly the same texts. Throws IngestError.
 */
export function parsePayload(raw: string): unknown {
  if (raw.trim() === '') throw noData();
  const text = wellFormedText(raw);
  const parsed = parseJson(text);
  if (parsed.ok) return checked(parsed.value, text);
  // Legacy clients base64-encode the JSON without saying so.
  const decoded = decodeBase64Text(text.trim());
  if (decoded !== undefined) {
    const again = parseJson(decoded);
    if (again.ok) return checked(again.value, decoded);
  }
  throw malformedRequest(`invalid JSON (${parsed.reason})`);
}

/** Every payload, whatever its encoding, passes here: depth limit and lone surrogates (see json-limits). */
function checked(value: unknown, text: string): unknown {
  try {
    return checkParsedJson(value, text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw malformedRequest(error.message);
    throw error;
  }
}
