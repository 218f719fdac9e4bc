import pg from 'pg';

/**
 * One dedicated LISTEN connection per log handle, shared by its live subscriptions. A notification
 * is only a hint that the log moved (none is replayed to a listener that was disconnected), so
 * subscriptions poll as well; when this connection fails, they carry on by polling alone.
 */
export class AppendListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
  ) {}

  /** Calls `wake` on every append notified from now on, until the returned function is called. */
  listen(wake: () => void): () => void {
    this.wakers.add(wake);
    if (!this.client && !this.connecting && !this.closed) this.connecting = this.connect().finally(() => (this.connecting = null));
    return () => this.wakers.delete(wake);
  }

  /** Resolves once the LISTEN is in place (or has failed): tests and callers that must not miss a hint. */
  async ready(): Promise<void> {
    await this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    const drop = () => {
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', () => {
      for (const wake of this.wakers) wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
      if (this.closed) return void (await client.end());
      this.client = client;
    } catch {
      // Polling still delivers; the next subscription tries to listen again.
      await client.end().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakers.clear();
    await this.connecting;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
