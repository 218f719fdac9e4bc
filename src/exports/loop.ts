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
