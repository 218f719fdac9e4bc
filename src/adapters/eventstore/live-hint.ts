import { END, type AllStreamSubscription, type EventStoreDBClient, type Filter } from '@eventstore/db-client';

/**
 * One live `$all` subscription per log handle, filtered by the server (no system events), shared
 * by the handle's live subscriptions as a wake-up: each event it delivers, and its confirmation
 * (events appended while it was being set up), wake them, and they read the log from their own
 * position. The events themselves come from the reads, so ordering, batching and the byte bound
 * are the reads' (tested by the contract suite); a subscription dropped by the server or the
 * network is set up again after `retryMs`, and meanwhile the readers poll.
 */
export class LiveHint {
  private subscription: AllStreamSubscription | null = null;
  private retry: NodeJS.Timeout | null = null;
  private readonly wakers = new Set<() => void>();
  private confirmed: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly client: EventStoreDBClient,
    /** The server-side filter: this log's events only (LogScope.filter). */
    private readonly filter: Filter,
    private readonly retryMs: number,
  ) {}

  /** Calls `wake` on every live event from now on, until the returned function is called. */
  listen(wake: () => void): () => void {
    this.wakers.add(wake);
    this.ensureSubscribed();
    return () => {
      this.wakers.delete(wake);
      if (this.wakers.size === 0) this.drop();
    };
  }

  wakeAll(): void {
    for (const wake of this.wakers) wake();
  }

  /** Resolves once the server has confirmed the subscription (or it failed): for callers that must not miss a hint. */
  ready(): Promise<void> {
    return this.confirmed;
  }

  private ensureSubscribed(): void {
    if (this.subscription || this.retry || this.closed) return;
    const subscription = this.client.subscribeToAll({ fromPosition: END, filter: this.filter });
    this.subscription = subscription;
    let settle = () => undefined as void;
    this.confirmed = new Promise<void>((resolve) => (settle = resolve));
    const lost = () => {
      settle();
      if (this.subscription !== subscription) return;
      this.subscription = null;
      subscription.unsubscribe().catch(() => undefined);
      // Appends made while no one listened are found by the readers' poll; listening resumes shortly.
      if (!this.closed && this.wakers.size && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = null;
          if (this.wakers.size) this.ensureSubscribed();
        }, this.retryMs);
        this.retry.unref();
      }
    };
    subscription.on('confirmation', () => {
      settle();
      this.wakeAll();
    });
    subscription.on('data', () => this.wakeAll());
    subscription.on('error', lost);
    subscription.on('end', lost);
  }

  private drop(): void {
    const subscription = this.subscription;
    this.subscription = null;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    subscription?.unsubscribe().catch(() => undefined);
  }

  close(): void {
    this.closed = true;
    this.wakers.clear();
    this.drop();
  }
}
