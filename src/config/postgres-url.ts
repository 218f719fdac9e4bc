const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Reads `postgres://user@host:port/database?schema=name` (also `postgresql://`). `schema` is this
 * service's parameter, taken out of the URL before it reaches the driver; every other parameter
 * (sslmode, connect_timeout, application_name…) is the driver's. Null when the value is no
 * PostgreSQL URL at all; a message when it is one but unusable.
 */
export function parsePostgresUrl(value: string, defaultSchema: string): { kind: 'postgres'; url: string; schema: string } | { error: string } | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return null;
  if (!url.hostname) return { error: 'the postgres:// URL names no host' };
  const schema = url.searchParams.get('schema') ?? defaultSchema;
  if (!SCHEMA_NAME.test(schema)) return { error: `schema must be a lower-case PostgreSQL identifier (letters, digits, _), not ${JSON.stringify(schema)}` };
  url.searchParams.delete('schema');
  return { kind: 'postgres', url: url.toString(), schema };
}
