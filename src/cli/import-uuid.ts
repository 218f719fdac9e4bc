import { v5 as uuidv5 } from 'uuid';

// Fixed namespace: the same event gets the same uuid on every import, whatever it is read from.
const IMPORT_NAMESPACE = '5a0c7b9e-2f1d-4c53-9a7e-3f4f1e0d2b61';

/** JSON with object keys sorted at every level: the same event however its line was formatted. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The uuid of an imported event that has none: UUIDv5 of its project and its canonical content.
 * Not of the file name or line number, so importing the same events again (a resumed batch, the
 * same file under another path, or piped through stdin) is deduplicated by (project, uuid) instead
 * of counted twice. Two lines with the same content (same name, distinct_id, timestamp and
 * properties) are therefore one event: in PostHog terms they are indistinguishable duplicates.
 */
export const importedEventUuid = (projectId: number, event: Record<string, unknown>): string =>
  uuidv5(`${projectId}:${canonicalJson(event)}`, IMPORT_NAMESPACE);
