import type { BatchExportRow, LogRow, RunRow } from '../../../projections/exports';
import { redactConfig } from '../../exports/destinations';

/** How many recent runs a BatchExport body embeds as `latest_runs`. */
export const LATEST_RUNS = 10;

/** BatchExportRun (spec 2.3). `cursor` is part of PostHog's shape and unused here. */
export function runBody(r: RunRow) {
  return {
    id: r.id,
    status: r.status,
    records_completed: r.records_completed,
    latest_error: r.latest_error,
    data_interval_start: r.data_interval_start,
    data_interval_end: r.data_interval_end,
    cursor: null,
    created_at: r.created_at,
    finished_at: r.finished_at,
    last_updated_at: r.last_updated_at,
    records_total_count: r.records_total_count,
    batch_export: r.batch_export_id,
    backfill: r.backfill_id,
  };
}

/** BatchExport (spec 2.2); the destination config without its secret fields. */
export function exportBody(e: BatchExportRow, latestRuns: readonly RunRow[]) {
  return {
    id: e.id,
    team_id: e.project_id,
    name: e.name,
    model: e.model,
    destination: { type: e.destination_type, config: redactConfig(e.destination_type, e.destination_config) },
    interval: e.interval,
    paused: e.paused,
    created_at: e.created_at,
    last_updated_at: e.last_updated_at,
    last_paused_at: e.last_paused_at,
    start_at: e.start_at,
    end_at: e.end_at,
    latest_runs: latestRuns.map(runBody),
    hogql_query: e.hogql_query,
    schema: e.schema,
  };
}

/** BatchExportLogEntry (spec 2.4). */
export function logBody(l: LogRow) {
  return {
    team_id: l.project_id,
    batch_export_id: l.batch_export_id,
    run_id: l.run_id,
    timestamp: l.timestamp,
    level: l.level,
    message: l.message,
  };
}
