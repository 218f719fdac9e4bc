/** Where the event log lives: the embedded SQLite file in DATA_DIR, or a PostgreSQL schema. */
export type EventLogChoice = { kind: 'sqlite' } | { kind: 'postgres'; url: string; schema: string };

/** The PostgreSQL schema when the URL names none. */
export const DEFAULT_LOG_SCHEMA = 'event_log';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Reads EVENT_LOG: `sqlite`, or `postgres://user@host:port/database?schema=name` (also
 * `postgresql://`). `schema` is this service's parameter, taken out of the URL before it reaches
 * the driver; every other parameter (sslmode, connect_timeout, application_name…) is the driver's.
 * Returns a message for an invalid value.
 */
export function parseEventLog(value: string): EventLogChoice | { error: string } {
  if (value === 'sqlite') return { kind: 'sqlite' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: 'expected `sqlite` or a postgres:// URL' };
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return { error: 'expected `sqlite` or a postgres:// URL' };
  if (!url.hostname) return { error: 'the postgres:// URL names no host' };
  const schema = url.searchParams.get('schema') ?? DEFAULT_LOG_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) return { error: `schema must be a lower-case PostgreSQL identifier (letters, digits, _), not ${JSON.stringify(schema)}` };
  url.searchParams.delete('schema');
  return { kind: 'postgres', url: url.toString(), schema };
}

/** The value with any URL password masked, for messages (it need not be a valid URL). */
export function redactedUrl(value: string): string {
  return value.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}
