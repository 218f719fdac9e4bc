export { DEFAULT_BACKFILL_MAX_RUNS, exportPolicy, exportPolicyFromConfig } from './export-policy';
export type { DestinationPolicy, ExportPolicy } from './export-policy';
export { FileRoot, PathRefusedError, isInside, walk, type CreatedModes } from './file-root';
export { NetworkPolicy, TargetRefusedError, normalizeHost } from './network-policy';
export { nonPublicKind } from './ip-address';
