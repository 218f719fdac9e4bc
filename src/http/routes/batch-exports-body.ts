import { z } from 'zod';
import type { BatchExportRow, LogRow, RunRow } from '../../../projections/exports';
import { BATCH_EXPORT_INTERVALS, LOG_LEVELS, RUN_STATUSES } from '../../../streams';
import { redactConfig } from '../../exports/destinations';
import { JsonObject } from '../schema/common';

export const BatchExportRun = z
  .object({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    records_completed: z.number().int().nullable(),
    latest_error: z.string().nullable(),
    data_interval_start: z.string(),
    data_interval_end: z.string(),
    cursor: z.null(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    last_updated_at: z.string(),
    records_total_count: z.number().int().nullable(),
    batch_export: z.string(),
    backfill: z.string().nullable(),
  })
  .meta({ id: 'BatchExportRun' });

export const BatchExport = z
  .object({
    id: z.string(),
    team_id: z.number().int(),
    name: z.string(),
    model: z.string().meta({ description: '`events` or `persons`.' }),
    destination: z.object({ type: z.string().meta({ examples: ['S3', 'Postgres', 'File'] }), config: JsonObject.nullable().meta({ description: 'Without its secret fields.' }) }),
    interval: z.enum(BATCH_EXPORT_INTERVALS),
    paused: z.boolean(),
    created_at: z.string(),
    last_updated_at: z.string(),
    last_paused_at: z.string().nullable(),
    start_at: z.string().nullable(),
    end_at: z.string().nullable(),
    latest_runs: z.array(BatchExportRun),
    hogql_query: z.string().nullable(),
    schema: JsonObject.nullable(),
  })
  .meta({ id: 'BatchExport' });

export const BatchExportLogEntry = z
  .object({
    team_id: z.number().int(),
    batch_export_id: z.string(),
    run_id: z.string().nullable(),
    timestamp: z.string(),
    level: z.enum(LOG_LEVELS),
    message: z.string(),
  })
  .meta({ id: 'BatchExportLogEntry' });

/** How many recent runs a BatchExport body embeds as `latest_runs`. */
export const LATEST_RUNS = 10;

/** BatchExportRun (spec 2.3). `cursor` is part of PostHog's shape and unused here. */
export function runBody(r: RunRow): z.output<typeof BatchExportRun> {
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
export function exportBody(e: BatchExportRow, latestRuns: readonly RunRow[]): z.output<typeof BatchExport> {
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
export function logBody(l: LogRow): z.output<typeof BatchExportLogEntry> {
  return {
    team_id: l.project_id,
    batch_export_id: l.batch_export_id,
    run_id: l.run_id,
    timestamp: l.timestamp,
    level: l.level,
    message: l.message,
  };
}
