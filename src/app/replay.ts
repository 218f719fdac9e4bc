import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

export interface DigestReport {
  projection: string;
  position: number;
  digest: string;
  /** Events this projection skipped (see runtime/quarantine.ts); the digest covers them too. */
  quarantined: number;
}

type Progress = NonNullable<CatchUpOptions['onProgress']>;

/** A fold's progress in events: the position reached, the head it folds to, and the events of the last batch. */
export type CountedProgress = (position: number, head: number, events: number) => void;

/** What a user counts as events: each captured event of a batched record, and every other record. */
const eventsIn = (record: RecordedEvent): number => (record.type === EventsCaptured.type ? (record.data as EventsCapturedData).events.length : 1);

/** A fold's per-batch progress callback that tells `onCounted` the events of each batch. */
export const countingEvents =
  (onCounted: CountedProgress): Progress =>
  (position, head, batch) =>
    onCounted(position, head, batch.reduce((n, r) => n + eventsIn(r), 0));

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

/** Where a rebuild stops: `asOf`'s last event, `toPosition`, the highest of `until`, or the log's head. */
async function lastPosition(fresh: Runtime, options: { asOf?: AsOf; toPosition?: number; until?: Record<string, number> }): Promise<number> {
  // `asOf` (replay --until): the last event at or before that point, found by reading up to it.
  if (options.asOf) return lastPositionAt(fresh.log, options.asOf);
  if (options.toPosition !== undefined) return options.toPosition;
  if (options.until) return Math.max(0, ...Object.values(options.until));
  return fresh.log.head();
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
    const head = await lastPosition(fresh, options);
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

/** Name of verify's row for a ClickHouse analytics store. */
export const ANALYTICS_ROW = 'analytics';
