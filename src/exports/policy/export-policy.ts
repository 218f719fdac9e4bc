import { join, resolve } from 'node:path';
import { inheritedModes, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../runtime/private-files';
import type { Config } from '../../config';
import { FileRoot, isInside } from './file-root';
import { NetworkPolicy } from './network-policy';

/** What a destination may touch: the File export root and the network policy. */
export interface DestinationPolicy {
  files: FileRoot;
  network: NetworkPolicy;
}

/** The operator's limits on batch exports, from the configuration. */
export interface ExportPolicy extends DestinationPolicy {
  /** The most runs one backfill (or one unpause with backfill) may create. */
  backfillMaxRuns: number;
}

export const DEFAULT_BACKFILL_MAX_RUNS = 10_000;

export function exportPolicy(options: { dataDir: string; fileRoot?: string; allowedHosts?: string; backfillMaxRuns?: number }): ExportPolicy {
  const root = options.fileRoot ?? join(options.dataDir, 'exports');
  // Export files under DATA_DIR are as private as the rest of it; a root the operator put elsewhere
  // (for another tool to read) gets the modes the process's own umask would have given.
  const modes = isInside(resolve(options.dataDir), resolve(root)) ? { file: PRIVATE_FILE_MODE, dir: PRIVATE_DIR_MODE } : inheritedModes();
  return {
    files: new FileRoot(root, modes),
    network: options.allowedHosts ? NetworkPolicy.parse(options.allowedHosts) : NetworkPolicy.NONE,
    backfillMaxRuns: options.backfillMaxRuns ?? DEFAULT_BACKFILL_MAX_RUNS,
  };
}

/** EXPORT_FILE_ROOT, EXPORT_ALLOWED_HOSTS and EXPORT_BACKFILL_MAX_RUNS (an invalid list throws a ConfigError). */
export const exportPolicyFromConfig = (config: Config): ExportPolicy =>
  exportPolicy({
    dataDir: config.DATA_DIR,
    fileRoot: config.EXPORT_FILE_ROOT,
    allowedHosts: config.EXPORT_ALLOWED_HOSTS,
    backfillMaxRuns: config.EXPORT_BACKFILL_MAX_RUNS,
  });
