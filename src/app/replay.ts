import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestProjection } from '../runtime/digest';
import { readCheckpoint } from '../runtime/projection-runner';
import { quarantineRows } from '../runtime/quarantine';
import type { EventLogChoice } from '../config/event-log';
import type { CatchUpOptions } from '../store/runner';
import { openRuntimeOn } from './open-configured-runtime';
import type { Runtime } from './open-runtime';
import { lastPositionAt, type AsOf } from '../time-travel';

export interface DigestReport {
  projection: string;
  position: number;
  digest: string;
  /** Events this projection skipped (see runtime/quarantine.ts); the digest covers them too. */
  quarantined: number;
}

type Progress = NonNullable<CatchUpOptions['onProgress']>;

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
 * Rebuilds every read model from the log into a fresh directory and digests it. `until` stops each
 * projection at a given position (verify rebuilds to exactly where the live store stands).
 */
export async function rebuild(
  dataDir: string,
  options: { outDir?: string; until?: Record<string, number>; asOf?: AsOf; onProgress?: Progress; keep?: boolean; eventLog?: EventLogChoice } = {},
): Promise<{ dir: string; digests: DigestReport[]; quarantined: number; position: number }> {
  const dir = options.outDir ?? mkdtempSync(join(tmpdir(), 'replay-'));
  const temporary = !options.keep && !options.outDir;
  // A temporary store (verify's, replay's without --out) is removed at the end and never recovered:
  // it needs no fsync (replay's commits spent about half their time in the WAL checkpoints' fsyncs).
  // A kept directory may be served afterwards, and is written as durably as any.
  const fresh = await openRuntimeOn(options.eventLog ?? { kind: 'sqlite' }, { dataDir, readModelDir: dir, scratchReadModels: temporary });
  try {
    // `asOf` (replay --until): the last event at or before that point, found by reading up to it.
    const head = options.asOf
      ? await lastPositionAt(fresh.log, options.asOf)
      : options.until
        ? Math.max(0, ...Object.values(options.until))
        : await fresh.log.head();
    const later = await withoutIndexesBuiltLater(fresh);
    await fresh.runner.catchUp({ toPosition: head, until: options.until, onProgress: options.onProgress });
    await later();
    const failures = fresh.runner.failures();
    if (Object.keys(failures).length) throw new Error(`replay failed: ${JSON.stringify(failures)}`);
    const digests = await liveDigests(fresh);
    const short = digests.filter((d) => d.position < (options.until?.[d.projection] ?? head));
    if (short.length) throw new Error(`replay failed: ${short.map((d) => `${d.projection} stopped at ${d.position} of ${head}`).join(', ')}`);
    return { dir, digests, quarantined: digests.reduce((n, d) => n + d.quarantined, 0), position: head };
  } finally {
    await fresh.close();
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

/** Catches the live store up, then replays to the same positions and compares digests. */
export async function verify(runtime: Runtime, dataDir: string, onProgress?: Progress): Promise<VerifyResult> {
  const head = await runtime.log.head();
  // A stopped projection makes catchUp (or its waiter) give up: that is a verify failure, not an error.
  await runtime.runner.catchUp({ toPosition: head }).catch(() => undefined);
  const failures = runtime.runner.failures();
  const live = await liveDigests(runtime);
  const until = Object.fromEntries(live.map((d) => [d.projection, d.position]));
  // The same log the live runtime reads (a server log's spec is its EVENT_LOG choice).
  const eventLog: EventLogChoice = runtime.logSpec.kind === 'sqlite' ? { kind: 'sqlite' } : runtime.logSpec;
  const { digests } = await rebuild(dataDir, { until, onProgress, eventLog });
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
  return { ok: rows.every((r) => r.equal && r.atHead), head, failures, rows };
}
