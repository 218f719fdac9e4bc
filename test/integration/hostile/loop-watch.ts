import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'vitest';

/** How long a concurrent `/_health` may take while a hostile request runs (issue 21). */
export const HEALTH_BUDGET_MS = 250;

const PROBE_INTERVAL_MS = 10;

export interface LoopWatch {
  /** Slowest `/_health` answer while the work ran, in ms. */
  healthMaxMs: number;
  healthProbes: number;
  /** The event loop's delay over the same time (perf_hooks), in ms. */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
}

/**
 * Runs `work` against an in-process test server while `/_health` is asked again and again, and
 * measures the event loop's delay meanwhile. The test server shares this process's loop, so the
 * histogram sees exactly what a held loop costs everyone else. Prepare payloads before calling:
 * work done by the test itself on the loop counts too.
 */
export async function watchLoop<T>(url: string, label: string, work: () => Promise<T>): Promise<{ result: T; watch: LoopWatch }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let done = false;
  let healthMaxMs = 0;
  let healthProbes = 0;
  // A probe counts from when it was due, not from when its timer fired: a loop held between two
  // probes delays the timer, and that delay is what a caller arriving then would have waited.
  const probing = (async () => {
    let due = performance.now();
    do {
      const res = await fetch(`${url}/_health`);
      await res.arrayBuffer();
      healthMaxMs = Math.max(healthMaxMs, performance.now() - due);
      healthProbes++;
      due = performance.now() + PROBE_INTERVAL_MS;
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    } while (!done);
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    done = true;
    await probing;
    histogram.disable();
  }
  const watch: LoopWatch = {
    healthMaxMs: Math.round(healthMaxMs),
    healthProbes,
    loopDelayMaxMs: Math.round(histogram.max / 1e6),
    loopDelayP99Ms: Math.round(histogram.percentile(99) / 1e6),
  };
  console.log(
    `[${label}] /_health max ${watch.healthMaxMs} ms over ${watch.healthProbes} probes; event loop delay p99 ${watch.loopDelayP99Ms} ms, max ${watch.loopDelayMaxMs} ms`,
  );
  return { result, watch };
}

/** watchLoop, then the budget asserted. */
export async function withinHealthBudget<T>(url: string, label: string, work: () => Promise<T>): Promise<T> {
  const { result, watch } = await watchLoop(url, label, work);
  expect(watch.healthMaxMs, `${label}: /_health took ${watch.healthMaxMs} ms (loop delay max ${watch.loopDelayMaxMs} ms)`).toBeLessThanOrEqual(HEALTH_BUDGET_MS);
  return result;
}
