import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedAnalyticsDigest } from '../../projections/analytics/digest';
import type { EventLogChoice } from '../config/event-log';
import type { Runtime } from './open-runtime';
import { ANALYTICS_ROW, countingEvents, liveDigests, rebuild, type CountedProgress, type DigestReport } from './replay';
import { replayOnThread } from './replay-thread';

export interface VerifyRow {
  projection: string;
  position: number;
  live: string;
  replayed: string;
  equal: boolean;
  /** Whether the live projection reached the log's head (a stopped one cannot). */
  atHead: boolean;
  quarantined: { live: number; replayed: number };
}

export interface VerifyResult {
  ok: boolean;
  head: number;
  /** Live projections that have stopped, with their reason. */
  failures: Record<string, string>;
  rows: VerifyRow[];
  /**
   * How the replay compared was made: `apart`, on its own thread beside the live catch-up; `again`,
   * after it, to the live positions (they differed from the head the replay apart went to).
   */
  replay: 'apart' | 'again';
}

/** A replay to `head` going on on a thread of its own (replayApart). */
export interface ReplayApart {
  head: number;
  digests: Promise<DigestReport[]>;
  /** Stops the thread and removes its store (its digests are not needed). */
  cancel(): Promise<void>;
}

/**
 * Starts replaying the log, to its head now, on a thread of its own: verify's second fold, started
 * before the live read models are caught up so the two folds of the same log run side by side (one
 * per core).
 */
export async function replayApart(runtime: Runtime, dataDir: string, onProgress?: CountedProgress): Promise<ReplayApart> {
  const head = await runtime.log.head();
  const outDir = mkdtempSync(join(tmpdir(), 'replay-'));
  const thread = replayOnThread({ dataDir, outDir, toPosition: head, eventLog: eventLogOf(runtime) }, onProgress);
  // Awaited by verify, or cancelled: a failure meanwhile must not go unhandled.
  thread.digests.catch(() => undefined);
  return {
    head,
    digests: thread.digests,
    async cancel() {
      await thread.stop();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** The same log the live runtime reads (a server log's spec is its EVENT_LOG choice). */
const eventLogOf = (runtime: Runtime): EventLogChoice => (runtime.logSpec.kind === 'sqlite' ? { kind: 'sqlite' } : runtime.logSpec);

/**
 * Catches the live store up to the log's head and replays to the same positions, then compares
 * digests. The replay (`replayApart`, started here unless the caller started it earlier) runs on a
 * thread of its own while the live store catches up here. When a live projection stands elsewhere
 * than where the replay went (stopped short by a fault, or moved on by a service folding
 * meanwhile), the store is replayed again to exactly where each stands.
 */
export async function verify(runtime: Runtime, dataDir: string, options: { onProgress?: CountedProgress; replay?: ReplayApart } = {}): Promise<VerifyResult> {
  const replay = options.replay ?? (await replayApart(runtime, dataDir, options.onProgress));
  const head = await runtime.log.head();
  // A stopped projection makes catchUp (or its waiter) give up: that is a verify failure, not an error.
  await runtime.runner.catchUp({ toPosition: head }).catch(() => undefined);
  const failures = runtime.runner.failures();
  const live = await liveDigests(runtime);
  let digests: DigestReport[];
  const apart = live.every((d) => d.position === replay.head);
  if (apart) digests = await replay.digests;
  else {
    await replay.cancel();
    const until = Object.fromEntries(live.map((d) => [d.projection, d.position]));
    const onProgress = options.onProgress && countingEvents(options.onProgress);
    ({ digests } = await rebuild(dataDir, { until, onProgress, eventLog: eventLogOf(runtime) }));
  }
  const rows = live.map((l) => {
    const r = digests.find((d) => d.projection === l.projection)!;
    return {
      projection: l.projection,
      position: l.position,
      live: l.digest,
      replayed: r.digest,
      equal: l.digest === r.digest && l.quarantined === r.quarantined,
      atHead: l.position >= head && !failures[l.projection],
      quarantined: { live: l.quarantined, replayed: r.quarantined },
    };
  });
  const analytics = await verifyAnalytics(runtime, head);
  if (analytics) rows.push(analytics);
  return { ok: rows.every((r) => r.equal && r.atHead), head, failures, rows, replay: apart ? 'apart' : 'again' };
}

/**
 * With an analytics store outside the read models (ClickHouse): once its projection has reached the
 * head, its digest against the read models' own events and person mapping, which it is folded from
 * (and which the replay above checks against the log). Order-independent on both sides.
 */
async function verifyAnalytics(runtime: Runtime, head: number): Promise<VerifyRow | null> {
  const fold = runtime.analyticsFold;
  if (!fold) return null;
  const reached = await Promise.race([fold.waitFor(head).then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), ANALYTICS_WAIT_MS).unref())]);
  const [stored, folded] = await Promise.all([fold.store.digest(), embeddedAnalyticsDigest(runtime.readModels.readmodels.session)]);
  const live = `events ${stored.events} persons ${stored.persons}`;
  const replayed = `events ${folded.events} persons ${folded.persons}`;
  return { projection: ANALYTICS_ROW, position: fold.folded, live, replayed, equal: live === replayed, atHead: reached, quarantined: { live: 0, replayed: 0 } };
}

/** How long verify waits for the analytics projection to reach the head (an unreachable server fails it). */
const ANALYTICS_WAIT_MS = 120_000;
