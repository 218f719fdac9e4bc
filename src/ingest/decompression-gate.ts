import { decompressionBusy } from './errors';

/**
 * Bounds how many large decompressions (and large JSON parses) run at once. Each one holds a
 * decode thread, a core, for up to a second; more at once than there are cores only slows every
 * one of them. Excess requests wait in order; past `maxQueued` waiting, a
 * request is refused at once with 503 and Retry-After (decompressionBusy): a flood then costs
 * nothing but the refusal, and SDKs retry 5xx later.
 */
export class DecompressionGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly maxQueued: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxQueued) throw decompressionBusy();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` never dips and a newcomer cannot jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}
