import pg from 'pg';

/**
 * One dedicated LISTEN connection per log handle, shared by its live subscriptions. A notification
 * is only a hint that the log moved (none is replayed to a listener that was disconnected), so
 * subscriptions poll as well; when this connection drops, they carry on by polling alone while it
 * reconnects.
 */
export class AppendListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly retryMs: number,
  ) {}

  /** Calls `wake` on every append notified from now on, until the returned function is called. */
  listen(wake: () => void): () => void {
    this.wakers.add(wake);
    this.ensureConnected();
    return () => this.wakers.delete(wake);
  }

  /** Wakes every subscription of this handle now: another thread of this process has appended. */
  wakeAll(): void {
    for (const wake of this.wakers) wake();
  }

  /** Resolves once the LISTEN is in place (or has failed): for callers that must not miss a hint. */
  async ready(): Promise<void> {
    await this.connecting;
  }

  private ensureConnected(): void {
    if (this.client || this.connecting || this.retry || this.closed) return;
    this.connecting = this.connect().finally(() => (this.connecting = null));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    let dropped = false;
    const drop = () => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      // Appends made while no one listened are found by the poll; listening resumes shortly.
      if (!this.closed && this.wakers.size && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = null;
          if (this.wakers.size) this.ensureConnected();
        }, this.retryMs);
        this.retry.unref();
      }
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', () => this.wakeAll());
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
      if (this.closed || dropped) return void (await client.end().catch(() => undefined));
      this.client = client;
      // Appends made while no one listened (a reconnect) are read now rather than at the next poll.
      this.wakeAll();
    } catch {
      drop();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakers.clear();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.connecting;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
