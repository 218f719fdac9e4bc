import { connect, type NatsConnection } from '@nats-io/transport-node';

/** The consumers API (`consumers.get()` with fetch/consume) needs this server version or later. */
export const MIN_SERVER_VERSION = '2.9.4';

export class NatsVersionError extends Error {
  override name = 'NatsVersionError';
}

function atLeast(version: string, min: string): boolean {
  const a = version.split(/[.-]/).slice(0, 3).map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== b[i]) return (a[i] ?? 0) > b[i];
  }
  return true;
}

/**
 * Connects (failing when no server answers: a start without the transport is refused, as a start
 * without its log is), then reconnects for ever: an outage makes hand-overs fail (503) until the
 * connection is back, with nothing to restart. Refuses a server older than the consumers API.
 */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  const nc = await connect({ servers: url.split(','), name, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 5000 });
  const version = nc.info?.version ?? '0.0.0';
  if (!atLeast(version, MIN_SERVER_VERSION)) {
    await nc.close();
    throw new NatsVersionError(`NATS server ${version} is too old: the ingestion transport needs ${MIN_SERVER_VERSION} or later (JetStream consumers API)`);
  }
  if (nc.info?.jetstream !== true) {
    await nc.close();
    throw new NatsVersionError('the NATS server runs without JetStream: start it with -js (the ingestion transport stores messages in a JetStream stream)');
  }
  return nc;
}

/** Follows the connection: false from a disconnect until the reconnect. */
export class ConnectionState {
  connected = true;

  constructor(nc: NatsConnection) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'staleConnection') this.connected = false;
        else if (s.type === 'reconnect') this.connected = true;
      }
    })();
    void nc.closed().then(() => {
      this.connected = false;
    });
  }
}
