const HEX32 = /^[0-9a-f]{32}$/;
const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The uuid a client sent, in canonical form (lower-case, hyphenated), so that deduplication by
 * (project, uuid) is not fooled by spelling. Accepts the spellings PostHog's capture accepts:
 * hyphenated, bare 32 hex digits, `{braced}` and `urn:uuid:`. Undefined when not a uuid.
 */
export function canonicalUuid(value: string): string | undefined {
  // What SDKs send: already canonical.
  // Stryker disable next-line ConditionalExpression: equivalent, a shortcut: the steps below keep a canonical uuid as it is
  if (CANONICAL.test(value)) return value;
  let text = value.trim().toLowerCase();
  if (text.startsWith('urn:uuid:')) text = text.slice('urn:uuid:'.length);
  else if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  if (text.length === 36 && [8, 13, 18, 23].every((i) => text[i] === '-')) text = text.replace(/-/g, '');
  if (!HEX32.test(text)) return undefined;
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}
