import { parsePostgresUrl } from './postgres-url';

/** Where the event log lives: the embedded SQLite file in DATA_DIR, a PostgreSQL schema, or a KurrentDB / EventStoreDB server. */
export type EventLogChoice = { kind: 'sqlite' } | { kind: 'postgres'; url: string; schema: string } | { kind: 'eventstore'; url: string; streamPrefix: string };

const EXPECTED = 'expected `sqlite`, a postgres:// URL or an esdb:// (kurrentdb://) connection string';

/** The PostgreSQL schema when the URL names none. */
export const DEFAULT_LOG_SCHEMA = 'event_log';

/**
 * Reads EVENT_LOG: `sqlite`, or `postgres://user@host:port/database?schema=name` (also
 * `postgresql://`). `schema` is this service's parameter, taken out of the URL before it reaches
 * the driver; every other parameter (sslmode, connect_timeout, application_name…) is the driver's.
 * Or a KurrentDB / EventStoreDB connection string (`esdb://…`, see parseEventStore).
 * Returns a message for an invalid value.
 */
export function parseEventLog(value: string): EventLogChoice | { error: string } {
  if (value === 'sqlite') return { kind: 'sqlite' };
  const eventStore = parseEventStore(value);
  if (eventStore) return eventStore;
  return parsePostgresUrl(value, DEFAULT_LOG_SCHEMA) ?? { error: EXPECTED };
}

const EVENTSTORE_SCHEME = /^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover):\/\//i;

const STREAM_PREFIX = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}$/;

/**
 * `esdb://host:2113?tls=false`, `esdb+discover://…`, `kurrentdb://…`, `kurrentdb+discover://…`:
 * a KurrentDB / EventStoreDB connection string (several hosts are comma-separated, which URL
 * does not parse, so only the scheme and a host are checked here; the client parses the rest
 * at start-up). `streamPrefix` is this service's parameter, as `schema` is for PostgreSQL: the
 * log is the server's streams with that prefix (several services on one server); it is taken
 * out before the string reaches the client.
 */
function parseEventStore(value: string): EventLogChoice | { error: string } | null {
  const m = EVENTSTORE_SCHEME.exec(value);
  if (!m) return null;
  const hosts = value.slice(m[0].length).split(/[/?]/, 1)[0];
  if (!hosts.slice(hosts.lastIndexOf('@') + 1)) return { error: `the ${m[1]}:// connection string names no host` };
  const q = value.indexOf('?');
  if (q < 0) return { kind: 'eventstore', url: value, streamPrefix: '' };
  let streamPrefix = '';
  const rest: string[] = [];
  for (const pair of value.slice(q + 1).split('&')) {
    if (!pair.toLowerCase().startsWith('streamprefix=')) {
      if (pair) rest.push(pair);
      continue;
    }
    try {
      streamPrefix = decodeURIComponent(pair.slice('streamprefix='.length));
    } catch {
      streamPrefix = pair;
    }
  }
  if (streamPrefix && !STREAM_PREFIX.test(streamPrefix)) {
    return { error: `streamPrefix must be letters, digits and _ . : - (not starting with $), not ${JSON.stringify(streamPrefix)}` };
  }
  return { kind: 'eventstore', url: value.slice(0, q) + (rest.length ? `?${rest.join('&')}` : ''), streamPrefix };
}

/** The value with any URL password masked, for messages (it need not be a valid URL). */
export function redactedUrl(value: string): string {
  return value.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}
