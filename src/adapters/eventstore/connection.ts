/**
 * The schemes EVENT_LOG accepts for a KurrentDB / EventStoreDB log. The 6.x client parses only the
 * `esdb` ones; KurrentDB's own `kurrentdb` names mean the same and are rewritten for it.
 */
const SCHEMES: Record<string, string> = {
  esdb: 'esdb',
  'esdb+discover': 'esdb+discover',
  kurrentdb: 'esdb',
  'kurrentdb+discover': 'esdb+discover',
};

const SCHEME = /^([a-z+]+):\/\//i;

/** The connection string as the 6.x client reads it (`kurrentdb://…` becomes `esdb://…`). */
export function clientConnectionString(value: string): string {
  const m = SCHEME.exec(value);
  if (!m || !Object.hasOwn(SCHEMES, m[1].toLowerCase())) throw new Error('expected an esdb://, esdb+discover://, kurrentdb:// or kurrentdb+discover:// connection string');
  return `${SCHEMES[m[1].toLowerCase()]}://${value.slice(m[0].length)}`;
}

/** The hosts of a connection string, without credentials or settings: what a DATA_DIR records. */
export function connectionHosts(value: string): string {
  const rest = value.replace(SCHEME, '');
  const hosts = rest.split(/[/?]/, 1)[0];
  return hosts.slice(hosts.lastIndexOf('@') + 1).toLowerCase();
}

/** A connection string the client cannot read (its message names the offending part, not the whole string). */
export class ConnectionStringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionStringError';
  }
}
