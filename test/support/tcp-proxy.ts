import { createServer, connect, type Socket } from 'node:net';

/**
 * A loopback TCP relay to a real server, that a test can cut and restore: "the database went away"
 * without stopping the shared database. While cut, connections are refused and open ones are reset.
 */
export async function tcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  const port = await listen(0);
  return {
    port,
    /** Refuses new connections and drops every open one. */
    async cut() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
    /** Accepts connections again, on the same port. */
    async restore() {
      await listen(port);
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}
