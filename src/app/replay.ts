import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedAnalyticsDigest } from '../../projections/analytics/digest';
import { digestProjection } from '../runtime/digest';
import { readCheckpoint } from '../runtime/projection-runner';
import { quarantineRows } from '../runtime/quarantine';
import { randomBytes } from 'node:crypto';
import type { EventLogChoice } from '../config/event-log';
import type { FoldedAnalyticsChoice } from '../config';
import { dropAnalyticsDatabase } from './open-analytics';
import type { CatchUpOptions } from '../store/runner';
import { openRuntimeOn } from './open-configured-runtime';
import type { Runtime } from './open-runtime';
import { lastPositionAt, type AsOf } from '../time-travel';
import { EventsCaptured, type EventsCapturedData, type RecordedEvent } from '../../streams';
import { replayOnThread, type ReplayThreadProgress } from './replay-thread';

export interface DigestReport {
  projection: string;
  position: number;
  digest: string;
  /** Events this projection skipped (see runtime/quarantine.ts); the digest covers them too. */
  quarantined: number;
}

type Progress = NonNullable<CatchUpOptions['onProgress']>;

/** What a user counts as events: each captured event of a batched record, and every other record. */
export const eventsIn = (record: RecordedEvent): number => (record.type === EventsCaptured.type ? (record.data as EventsCapturedData).events.length : 1);

/** Snapshot of each projection's checkpoint and digest, read in one transaction so they agree. */
export async function liveDigests(runtime: Runtime): Promise<DigestReport[]> {
  const reports: DigestReport[] = [];
  for (const p of runtime.runner.projections) {
    const report = await runtime.readModels[p.store].transaction(
      async (tx) => ({
        projection: p.name,
        position: (await readCheckpoint(tx, p.name))?.position ?? 0,
        digest: await digestProjection(tx, p),
        quarantined: (await quarantineRows(tx, p.name)).length,
      }),
      { snapshot: true },
    );
    reports.push(report);
  }
  return reports;
}

/**
 * Drops the indexes of the fresh store's tables that their schemas build after a replay's fold
 * (TableSchema.builtAfterReplay); the returned function creates them again (CREATE INDEX ... IF NOT
 * EXISTS from the same schema). In a 200k-event replay, the events table's four secondary indexes
 * kept up row by row cost 3.0 s of CPU to insert; built afterwards, 1.1 s and 0.7 s to build them.
 * A directory left without them (a replay that failed) gets them back from any start, which
 * creates every table's indexes when missing.
 */
async function withoutIndexesBuiltLater(fresh: Runtime): Promise<() => Promise<void>> {
  await fresh.runner.ready;
  const later = fresh.runner.projections.flatMap((p) => p.tables.filter((t) => t.builtAfterReplay?.length).map((table) => ({ store: fresh.readModels[p.store], table })));
  for (const { store, table } of later) {
    await store.transaction(async (tx) => {
      for (const index of table.builtAfterReplay!) await tx.run(`DROP INDEX IF EXISTS "${index}"`);
    });
  }
  return async () => {
    for (const { store, table } of later) await store.transaction((tx) => tx.createTables([table]));
  };
}

/**
 * Rebuilds every read model from the log into a fresh directory and digests it. `toPosition` stops
 * every projection there, `until` each at a position of its own (verify rebuilds to exactly where
 * the live store stands); without either, at the log's head.
 */
export async function rebuild(
  dataDir: string,
  options: {
    /** Where the fresh store goes (default: a new temporary directory); removed at the end unless `keep`. */
    outDir?: string;
    toPosition?: number;
    until?: Record<string, number>;
    asOf?: AsOf;
    onProgress?: Progress;
    keep?: boolean;
    eventLog?: EventLogChoice;
    /** A ClickHouse analytics store (CLICKHOUSE_URL): its tables are rebuilt too, in a fresh database beside the configured one. */
    analytics?: FoldedAnalyticsChoice;
  } = {},
): Promise<{ dir: string; digests: DigestReport[]; quarantined: number; position: number; analyticsDatabase?: string }> {
  const dir = options.outDir ?? mkdtempSync(join(tmpdir(), 'replay-'));
  const temporary = !options.keep;
  // A temporary store (verify's, replay's without --out) is removed at the end and never recovered:
  // it needs no fsync (replay's commits spent about half their time in the WAL checkpoints' fsyncs).
  // A kept directory may be served afterwards, and is written as durably as any.
  const analytics = options.analytics && { ...options.analytics, database: `${options.analytics.database}_replay_${randomBytes(4).toString('hex')}` };
  const fresh = await openRuntimeOn(options.eventLog ?? { kind: 'sqlite' }, { dataDir, readModelDir: dir, scratchReadModels: temporary, analytics });
  let keepAnalytics = false;
  try {
    // `asOf` (replay --until): the last event at or before that point, found by reading up to it.
    const head = options.asOf
      ? await lastPositionAt(fresh.log, options.asOf)
      : options.toPosition !== undefined
        ? options.toPosition
        : options.until
        ? Math.max(0, ...Object.values(options.until))
        : await fresh.log.head();
    const later = await withoutIndexesBuiltLater(fresh);
    await fresh.runner.catchUp({ toPosition: head, until: options.until, onProgress: options.onProgress });
    // A temporary store is only digested (in its tables' key order) and removed: nothing would read
    // it by the indexes built after a replay, so they are built for a kept directory only.
    if (!temporary) await later();
    const failures = fresh.runner.failures();
    if (Object.keys(failures).length) throw new Error(`replay failed: ${JSON.stringify(failures)}`);
    const digests = await liveDigests(fresh);
    const short = digests.filter((d) => d.position < (options.until?.[d.projection] ?? head));
    if (short.length) throw new Error(`replay failed: ${short.map((d) => `${d.projection} stopped at ${d.position} of ${head}`).join(', ')}`);
    const fold = fresh.analyticsFold;
    if (fold && analytics) {
      await fresh.ready;
      await fold.waitFor(head);
      const digest = await fold.store.digest();
      digests.push({ projection: ANALYTICS_ROW, position: head, digest: `events ${digest.events} persons ${digest.persons}`, quarantined: 0 });
      keepAnalytics = !!options.keep;
    }
    return {
      dir,
      digests,
      quarantined: digests.reduce((n, d) => n + d.quarantined, 0),
      position: head,
      ...(keepAnalytics && analytics ? { analyticsDatabase: analytics.database } : {}),
    };
  } finally {
    await fresh.close();
    if (analytics && !keepAnalytics) await dropAnalyticsDatabase(analytics);
    if (temporary) rmSync(dir, { recursive: true, force: true });
  }
}

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
export async function replayApart(runtime: Runtime, dataDir: string, onProgress?: ReplayThreadProgress): Promise<ReplayApart> {
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
export async function verify(runtime: Runtime, dataDir: string, options: { onProgress?: ReplayThreadProgress; replay?: ReplayApart } = {}): Promise<VerifyResult> {
  const replay = options.replay ?? (await replayApart(runtime, dataDir, options.onProgress));
  const head = await runtime.log.head();
  // A stopped projection makes catchUp (or its waiter) give up: that is a verify failure, not an error.
  await runtime.runner.catchUp({ toPosition: head }).catch(() => undefined);
  const failures = runtime.runner.failures();
  const live = await liveDigests(runtime);
  let digests: DigestReport[];
  if (live.every((d) => d.position === replay.head)) digests = await replay.digests;
  else {
    await replay.cancel();
    const until = Object.fromEntries(live.map((d) => [d.projection, d.position]));
    const { onProgress } = options;
    const progress: Progress | undefined = onProgress && ((position, to, batch) => onProgress(position, to, batch.reduce((n, r) => n + eventsIn(r), 0)));
    ({ digests } = await rebuild(dataDir, { until, onProgress: progress, eventLog: eventLogOf(runtime) }));
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
  return { ok: rows.every((r) => r.equal && r.atHead), head, failures, rows };
}

/** Name of verify's row for a ClickHouse analytics store. */
export const ANALYTICS_ROW = 'analytics';

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
