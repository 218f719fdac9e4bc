/**
 * Calls `step` repeatedly, `intervalMs` apart, never overlapping itself. `wake()` runs the next
 * step now (e.g. when work was just queued); `stop()` resolves once the current step is over.
 */
export class Loop {
  private running = false;
  private done: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private wakeUp: (() => void) | null = null;

  constructor(
    private readonly step: () => Promise<void>,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  start(intervalMs: number): void {
    if (this.running) return;
    this.running = true;
    this.done = (async () => {
      while (this.running) {
        try {
          await this.step();
        } catch (err) {
          this.onError(err instanceof Error ? err : new Error(String(err)));
        }
        if (!this.running) break;
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.timer = setTimeout(resolve, intervalMs);
        });
        this.wakeUp = null;
      }
    })();
  }

  wake(): void {
    if (this.timer) clearTimeout(this.timer);
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.done;
    this.done = null;
  }
}

/**
 * `fn` made to take turns with itself: each call starts once the previous one has settled. A tick
 * reads the read models asynchronously, so a tick called by hand (tests, `drain`) while the loop's
 * own is between two reads would otherwise act on a worklist the other is changing.
 */
export function oneAtATime<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  let turn: Promise<unknown> = Promise.resolve();
  return (...args: A) => {
    const run = turn.then(() => fn(...args));
    turn = run.catch(() => undefined);
    return run;
  };
}
