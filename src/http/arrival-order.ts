/**
 * Runs the CPU-bound part of requests (flag evaluation) in the order the requests arrived, a bounded
 * batch per event-loop turn, and lets their answers go out together after the batch.
 *
 * Left to itself Node handles every request that became readable in one poll before it polls
 * again, and each handler evaluates and then writes its answer before the next one starts. Under
 * load (50 SDK connections, each waiting for its answer) that had two costs, both measured with
 * `npm run bench -- decide`:
 * - order: a request read late in one turn waited out that turn and most of the next, so the p99
 *   latency was about twice the mean;
 * - alternation: evaluating and writing to a socket took turns for every request, each evicting
 *   the other's code and data from the CPU caches and waking the client once per answer.
 * Here the jobs queued before a turn run first, oldest first, up to `batch` of them; each handler
 * continues (and writes its answer) in the microtasks after the batch. A request arriving meanwhile
 * queues behind the waiting ones. With 16 per turn the same machine served about twice the
 * requests per second at a lower p99 than either handling requests inline or one per turn.
 * Under light load the queue is empty and a job runs in the turn its request was read in.
 * A `run` job's `done` must not throw: it is called in a loop over the batch.
 */
export interface ArrivalOrder {
  /** Queues `work`; the promise settles with its outcome once its batch has run. */
  <T>(work: () => T): Promise<Awaited<T>>;
  /**
   * The same without a promise: `done` gets the outcome right after the batch ran (after the job's
   * promise settles, for a job that returned one). For the hottest route, which then answers from
   * `done`: the promise, the async handler around it and fastify's wrapper of that handler were
   * three allocations and microtask hops per request.
   */
  run<T>(work: () => T | Promise<T>, done: Done<T>): void;
}

/** A job's outcome: `failed` false with its value, or true with what it threw or rejected with. */
export type Done<T> = (failed: boolean, outcome: T | unknown) => void;

interface Job {
  work: () => unknown;
  done: Done<unknown>;
}

export function arrivalOrderQueue(batch = 16): ArrivalOrder {
  const queue: Job[] = [];
  let scheduled = false;
  const runBatch = () => {
    const jobs = queue.splice(0, batch);
    if (queue.length > 0) setImmediate(runBatch);
    else scheduled = false;
    // Every job of the batch runs before any caller continues: the answers then go out together.
    const outcomes: unknown[] = new Array(jobs.length);
    const failed: boolean[] = new Array(jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      try {
        outcomes[i] = jobs[i].work();
        failed[i] = false;
      } catch (err) {
        outcomes[i] = err;
        failed[i] = true;
      }
    }
    for (let i = 0; i < jobs.length; i++) {
      const { done } = jobs[i];
      const outcome = outcomes[i];
      if (!failed[i] && outcome instanceof Promise)
        outcome.then(
          (value) => done(false, value),
          (err: unknown) => done(true, err),
        );
      else done(failed[i], outcome);
    }
  };
  const run = (work: () => unknown, done: Done<unknown>) => {
    queue.push({ work, done });
    if (!scheduled) {
      scheduled = true;
      setImmediate(runBatch);
    }
  };
  const inOrder = <T>(work: () => T) =>
    new Promise<Awaited<T>>((resolve, reject) => run(work, (failed, outcome) => (failed ? reject(outcome) : resolve(outcome as Awaited<T>))));
  return Object.assign(inOrder, { run: run as ArrivalOrder['run'] });
}
