import type { CatchUpOptions } from '../store/runner';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyLogUntil } from '../adapters/sqlite/copy-log';
import type { EventLogChoice } from '../config/event-log';
import { storeFiles } from '../runtime/store-files';
import type { AsOf } from '../time-travel';
import { rebuild, type DigestReport } from './replay';

/** In a directory `replay --until` wrote: the point it stands at, for the read-only service to name. */
export const REPLAY_FILE = 'replay.json';

export interface ReplayedPoint {
  /** The point as asked (`--until`). */
  until: string;
  /** The last event included (0: none). */
  position: number;
}

export class ReplayTargetError extends Error {
  override name = 'ReplayTargetError';
}

/**
 * `replay --until`: the whole read side as it stood at a point, built in `outDir`, with (for the
 * SQLite log) a copy of the log up to that point beside it, so that `READ_ONLY=true npm start` on
 * `outDir` serves exactly that moment. A server log (PostgreSQL, KurrentDB) cannot be copied into a
 * directory: there `outDir` gets the read models and digests only.
 */
export async function replayUntil(
  dataDir: string,
  options: { until: AsOf; untilText: string; outDir: string; eventLog?: EventLogChoice; onProgress?: NonNullable<CatchUpOptions['onProgress']> },
): Promise<{ dir: string; digests: DigestReport[]; quarantined: number; position: number; logCopied: boolean }> {
  if (existsSync(options.outDir) && readdirSync(options.outDir).length > 0) throw new ReplayTargetError(`--out ${options.outDir} is not empty: replay --until writes a whole data directory, into a new or empty one`);
  const eventLog = options.eventLog ?? { kind: 'sqlite' as const };
  const result = await rebuild(dataDir, { outDir: options.outDir, keep: true, asOf: options.until, eventLog, onProgress: options.onProgress });
  const logCopied = eventLog.kind === 'sqlite';
  if (logCopied) copyLogUntil(storeFiles(dataDir).log, storeFiles(options.outDir).log, result.position);
  const point: ReplayedPoint = { until: options.untilText, position: result.position };
  writeFileSync(join(options.outDir, REPLAY_FILE), JSON.stringify(point) + '\n', { mode: 0o600 });
  return { ...result, logCopied };
}

/** The point a replayed directory stands at, or null for a live data directory. */
export function replayedPoint(dir: string): ReplayedPoint | null {
  const path = join(dir, REPLAY_FILE);
  if (!existsSync(path)) return null;
  const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<ReplayedPoint>;
  return typeof value.position === 'number' && typeof value.until === 'string' ? { until: value.until, position: value.position } : null;
}
