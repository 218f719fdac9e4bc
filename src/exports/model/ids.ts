import { v5 as uuidv5 } from 'uuid';

/** Namespace of every id minted from export inputs (fixed forever: changing it renames every run). */
export const BATCH_EXPORT_NAMESPACE = '6f0c9a52-4c1e-5b7e-9d63-3a1f2b8c7e40';

/**
 * A scheduled run's id: UUIDv5 of (export, interval end). Every scheduler process computes the
 * same id for the same interval, so the run stream's existence is the "already scheduled" check.
 */
export const scheduledRunId = (batchExportId: string, intervalEnd: string): string =>
  uuidv5(`${batchExportId}/scheduled/${intervalEnd}`, BATCH_EXPORT_NAMESPACE);

/** A backfill run: stable per (backfill, interval end), distinct from the scheduled run of the same end. */
export const backfillRunId = (batchExportId: string, backfillId: string, intervalEnd: string): string =>
  uuidv5(`${batchExportId}/backfill/${backfillId}/${intervalEnd}`, BATCH_EXPORT_NAMESPACE);
