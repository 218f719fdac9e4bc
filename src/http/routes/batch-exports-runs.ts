import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../actor';
import { LOG_LEVELS, type BatchExportLogLevel } from '../../../streams';
import { notFoundError } from '../errors';
import { pageEnvelope, type Page } from '../pagination';
import { pageQuery, paginated, ProjectId, raise } from '../schema/common';
import { BatchExportLogEntry, BatchExportRun, logBody, runBody } from './batch-exports-body';
import { cursorEnvelope, decodeCursor } from './batch-exports-cursor';
import type { Parts } from '../runtime-parts';
import { AsOfQuery, asOfOf, orNotFound } from '../schema/as-of';

const ExportParams = z.object({ project_id: ProjectId, id: z.string().meta({ description: 'Batch export id (UUID).' }) });
const RunParams = ExportParams.extend({ run_id: z.string().meta({ description: 'Run id (UUID).' }) });

const RunsQuery = z.object({
  limit: pageQuery().limit,
  cursor: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return decodeCursor(value);
      } catch {
        // DRF answers a cursor it cannot read with 404 "Invalid cursor".
        return raise(ctx, notFoundError('Invalid cursor'));
      }
    })
    .meta({ description: 'Opaque: the `next` / `previous` URL carries it.' }),
});

/** `level=INFO` or `level=warning,error` (one of the listed levels matches). */
const Levels = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (!value) return undefined;
    const levels = value.split(',').map((l) => l.trim().toUpperCase()).filter(Boolean);
    const bad = levels.find((level) => !(LOG_LEVELS as readonly string[]).includes(level));
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `"${bad}" is not a valid choice. Use one of: ${LOG_LEVELS.join(', ')}.` });
      return z.NEVER;
    }
    return levels as BatchExportLogLevel[];
  })
  .meta({ description: `One level or several, comma-separated: ${LOG_LEVELS.join(', ')} (any case).` });
const LogsQuery = z.object({ ...pageQuery({ defaultLimit: 50, maxLimit: 500 }), level: Levels, search: z.string().optional().meta({ description: 'Part of the message.' }) });

/**
 * Runs and logs of a batch export (project scope, spec 4.3), all `batch_export:read`; plus
 * PostHog's run actions `cancel` and `retry` (`batch_export:write`). Runs use the cursor
 * envelope (newest first, `limit` default 100); logs the offset envelope (newest first,
 * `limit` default 50, at most 500, `level` and `search` filters).
 */
export const batchExportRunRoutes: FastifyPluginAsyncZod<Parts<'exports' | 'timeTravel'>> = async (app, { exports, timeTravel }) => {
  const { service, queries } = exports;
  const base = '/api/projects/:project_id/batch_exports/:id';
  const read = { scope: 'batch_export:read' as const };
  const write = { scope: 'batch_export:write' as const };
  const projects = (params: { project_id: string }) => [Number(params.project_id)];
  const Runs = z.object({ next: z.string().nullable(), previous: z.string().nullable(), results: z.array(BatchExportRun) });

  app.get(
    `${base}/runs/`,
    { config: read, schema: { operationId: 'batch_exports_runs_list', summary: 'Runs, newest first (cursor pages).', params: ExportParams, querystring: RunsQuery, response: { 200: Runs } } },
    async (request) => {
      const exp = await service.get(projects(request.params), request.params.id);
      const page = await queries.runs.page(exp.id, request.query.limit, request.query.cursor);
      return cursorEnvelope(request, page, page.rows.map(runBody));
    },
  );

  app.get(
    `${base}/runs/:run_id/`,
    { config: read, schema: { summary: 'One run (`as_of`: as it stood then).', params: RunParams, querystring: AsOfQuery, response: { 200: BatchExportRun } } },
    async (request) => {
      const asOf = asOfOf(request.query);
      if (!asOf) return runBody(await service.run(projects(request.params), request.params.id, request.params.run_id));
      // The export must be visible now (scope and project), as for the live read; the run as it stood.
      const exp = await service.get(projects(request.params), request.params.id);
      const run = await timeTravel.run(request.params.run_id, asOf);
      return runBody(orNotFound(run && run.batch_export_id === exp.id ? run : undefined));
    },
  );

  app.post(`${base}/runs/:run_id/cancel/`, { config: write, schema: { summary: 'Cancels a run.', params: RunParams, response: { 200: BatchExportRun } } }, async (request) =>
    runBody(await service.cancelRun(projects(request.params), request.params.id, request.params.run_id, actorOf(request))),
  );

  app.post(`${base}/runs/:run_id/retry/`, { config: write, schema: { summary: 'Runs a finished run again.', params: RunParams, response: { 200: BatchExportRun } } }, async (request) =>
    runBody(await service.retryRun(projects(request.params), request.params.id, request.params.run_id, actorOf(request))),
  );

  const logs = async (request: FastifyRequest, params: { project_id: string; id: string }, query: Page & z.output<typeof LogsQuery>, runId?: string) => {
    const exp = await service.get(projects(params), params.id);
    if (runId !== undefined) await service.run(projects(params), exp.id, runId);
    const { level, search, ...page } = query;
    const { count, rows } = await queries.logs.list({ batchExportId: exp.id, runId: runId?.toLowerCase(), levels: level, search, ...page });
    return pageEnvelope(request, page, count, rows.map(logBody));
  };

  app.get(
    `${base}/logs/`,
    { config: read, schema: { operationId: 'batch_exports_logs_list', summary: 'Log entries of the export, newest first.', params: ExportParams, querystring: LogsQuery, response: { 200: paginated(BatchExportLogEntry) } } },
    async (request) => logs(request, request.params, request.query),
  );
  app.get(
    `${base}/runs/:run_id/logs/`,
    { config: read, schema: { operationId: 'batch_exports_runs_logs_list', summary: 'Log entries of one run, newest first.', params: RunParams, querystring: LogsQuery, response: { 200: paginated(BatchExportLogEntry) } } },
    async (request) => logs(request, request.params, request.query, request.params.run_id),
  );
};
