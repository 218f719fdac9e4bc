export { batchExportsProjection } from './batch-exports';
export { batchExportRunsProjection } from './runs';
export { batchExportLogsProjection } from './logs';
export { batchExportQueries, type BatchExportQueries, type BatchExportRow, type BackfillRow, type PauseSpan } from './export-queries';
export { batchExportRunQueries, type BatchExportRunQueries, type RunRow, type RunCursor, type RunPage } from './run-queries';
export { batchExportLogQueries, type BatchExportLogQueries, type LogRow, type LogFilter } from './log-queries';

/** The projection names the exports service waits on after a write. */
export const EXPORT_PROJECTIONS = ['batch_exports', 'batch_export_runs', 'batch_export_logs'] as const;
