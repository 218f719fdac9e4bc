import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { actorOf } from '../actor';
import { LOG_LEVELS, type BatchExportLogLevel } from '../../../streams';
import { invalidInput } from '../errors';
import { pageEnvelope, parsePage } from '../pagination';
import { logBody, runBody } from './batch-exports-body';
import { cursorEnvelope, decodeCursor } from './batch-exports-cursor';

type Params = { project_id: string; id: string; run_id?: string };
type Query = Record<string, string | undefined>;


/** `level=INFO` or `level=warning,error` (one of the listed levels matches). */
function levelsOf(query: Query): BatchExportLogLevel[] | undefined {
  if (!query.level) return undefined;
  const levels = query.level.split(',').map((l) => l.trim().toUpperCase()).filter(Boolean);
  for (const level of levels)
    if (!(LOG_LEVELS as readonly string[]).includes(level)) throw invalidInput(`"${level}" is not a valid choice. Use one of: ${LOG_LEVELS.join(', ')}.`, 'level');
  return levels as BatchExportLogLevel[];
}

/**
 * Runs and logs of a batch export (project scope, spec 4.3), all `batch_export:read`; plus
 * PostHog's run actions `cancel` and `retry` (`batch_export:write`). Runs use the cursor
 * envelope (newest first, `limit` default 100); logs the offset envelope (newest first,
 * `limit` default 50, at most 500, `level` and `search` filters).
 */
export const batchExportRunRoutes: FastifyPluginAsync = async (app) => {
  const { service, queries } = app.runtime.exports;
  const base = '/api/projects/:project_id/batch_exports/:id';
  const read = { config: { scope: 'batch_export:read' as const } };
  const write = { config: { scope: 'batch_export:write' as const } };
  const projects = (request: FastifyRequest<{ Params: Params }>) => [Number(request.params.project_id)];

  app.get<{ Params: Params; Querystring: Query }>(`${base}/runs/`, read, async (request) => {
    const exp = await service.get(projects(request), request.params.id);
    const { limit } = parsePage({ limit: request.query.limit }, { defaultLimit: 100, maxLimit: 1000 });
    const page = await queries.runs.page(exp.id, limit, decodeCursor(request.query.cursor));
    return cursorEnvelope(request, page, page.rows.map(runBody));
  });

  app.get<{ Params: Params }>(`${base}/runs/:run_id/`, read, async (request) =>
    runBody(await service.run(projects(request), request.params.id, request.params.run_id!)),
  );

  app.post<{ Params: Params }>(`${base}/runs/:run_id/cancel/`, write, async (request) =>
    runBody(await service.cancelRun(projects(request), request.params.id, request.params.run_id!, actorOf(request))),
  );

  app.post<{ Params: Params }>(`${base}/runs/:run_id/retry/`, write, async (request) =>
    runBody(await service.retryRun(projects(request), request.params.id, request.params.run_id!, actorOf(request))),
  );

  const logs = async (request: FastifyRequest<{ Params: Params; Querystring: Query }>, runId?: string) => {
    const exp = await service.get(projects(request), request.params.id);
    if (runId !== undefined) await service.run(projects(request), exp.id, runId);
    const page = parsePage(request.query, { defaultLimit: 50, maxLimit: 500 });
    const { count, rows } = await queries.logs.list({
      batchExportId: exp.id,
      runId: runId?.toLowerCase(),
      levels: levelsOf(request.query),
      search: request.query.search,
      ...page,
    });
    return pageEnvelope(request, page, count, rows.map(logBody));
  };

  app.get<{ Params: Params; Querystring: Query }>(`${base}/logs/`, read, async (request) => logs(request));
  app.get<{ Params: Params; Querystring: Query }>(`${base}/runs/:run_id/logs/`, read, async (request) => logs(request, request.params.run_id!));
};
