import Fastify, { LogController, type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config';
import type { Runtime } from '../app';
import { authPlugin } from './auth';
import { clientErrorHandler } from './client-error';
import { badUrl, registerErrorHandling } from './errors';
import { registerJsonBody } from './json-body';
import { parseQueryString, refuseBadQueries } from './query-string';
import { trustProxySetting } from './trust-proxy';
import { limitsOf, partsOf } from './runtime-parts';
import { healthRoutes } from './routes/health';
import { organizationRoutes } from './routes/organizations';
import { projectRoutes } from './routes/projects';
import { projectCreateRoutes } from './routes/project-create';
import { personalApiKeyRoutes } from './routes/personal-api-keys';
import { captureRoutes } from './routes/capture';
import { featureFlagRoutes } from './routes/feature-flags';
import { peopleRoutes } from './routes/people';
import { decideRoutes } from './routes/decide';
import { localEvaluationRoutes } from './routes/local-evaluation';
import { experimentRoutes } from './routes/experiments';
import { experimentSavedMetricRoutes } from './routes/experiment-saved-metrics';
import { actionRoutes } from './routes/actions';
import { experimentQueryRoutes } from './routes/experiment-query';
import { cohortRoutes } from './routes/cohorts';
import { batchExportRoutes } from './routes/batch-exports';
import { recordingRoutes } from './routes/recordings';
import { remoteConfigRoutes } from './routes/remote-config';
import { refuseWrites } from './read-only';
import { replayedPoint } from '../app/replay-until';
import { staticSdkRoutes } from './routes/static-sdk';
import { consoleRoutes } from './routes/console';
import { registerPublicCors, setPublicCors, isPublicPath } from './public-endpoint';
import { surveyRoutes } from './routes/surveys';
import { earlyAccessRoutes } from './routes/early-access';
import { identityRoutes } from './routes/identity';
import { activityRoutes } from './routes/activity';
import { evaluationReasonRoutes } from './routes/evaluation-reasons';
import { experimentExposureRoutes } from './routes/experiment-exposures';
import { registerOpenApi } from './openapi';
import { serializerCompiler, validatorCompiler } from './schema/provider';

export interface RouteSummary {
  method: string;
  url: string;
  /** The route's own `config` (e.g. the personal-key `scope` it requires). */
  config: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered (methods and path patterns), in registration order. */
    routeTable: RouteSummary[];
  }
}

/** Builds the HTTP app over an opened runtime; routes are encapsulated plugins. */
export async function buildApp(runtime: Runtime, config: Config, options: FastifyServerOptions = {}) {
  const app = Fastify({
    logger: options.logger ?? { level: config.LOG_LEVEL },
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseQueryString },
    // Per-request lines cost more than the ingestion work itself; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    clientErrorHandler,
    // A path that does not decode never reaches a route: it gets the error shape here.
    frameworkErrors: (err, request, routeReply) => {
      // No route matched, so no route's reply types apply: it answers as a plain reply.
      const reply: FastifyReply = routeReply;
      const api = badUrl(err);
      if (isPublicPath(request.url)) setPublicCors(request, reply);
      void reply.status(api.status).send(api.body);
    },
    ...options,
  });
  const routeTable: RouteSummary[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeTable.push({ method, url: route.url, config: route.config });
  });
  // Route schemas are zod: validation answers in the error shape, answers are written through them.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerPublicCors(app);
  if (config.READ_ONLY) {
    const point = replayedPoint(config.DATA_DIR);
    refuseWrites(app, point && `${point.until} (log position ${point.position})`);
  }
  await app.register(authPlugin, { access: runtime.queries.access });
  refuseBadQueries(app);
  registerJsonBody(app);
  await registerOpenApi(app);
  // Each context is handed the runtime members it uses, and no others.
  const parts = partsOf.bind(null, runtime);
  const limits = limitsOf(config);
  await app.register(healthRoutes, parts(['runner', 'log', 'storage', 'transport'], []));
  await app.register(projectRoutes, parts(['access'], ['access']));
  await app.register(projectCreateRoutes, parts(['access'], ['access']));
  await app.register(personalApiKeyRoutes, parts(['access'], ['access']));
  await app.register(organizationRoutes, parts([], ['access']));
  await app.register(identityRoutes, parts([], ['access']));
  await app.register(captureRoutes, { ...parts(['ingest'], []), config: limits });
  await app.register(featureFlagRoutes, parts(['flags', 'timeTravel'], ['access', 'flags']));
  await app.register(peopleRoutes, parts(['timeTravel', 'analytics'], ['ingestion']));
  await app.register(decideRoutes, { ...parts(['projectIdForToken', 'flagSource', 'remoteConfig', 'flagCache'], []), config: limits });
  await app.register(localEvaluationRoutes, parts(['projectIdForToken', 'flagCache', 'flagSource'], ['access', 'ingestion']));
  await app.register(experimentRoutes, parts(['experiments', 'timeTravel'], ['access']));
  await app.register(experimentSavedMetricRoutes, parts(['experiments', 'timeTravel'], ['access']));
  await app.register(actionRoutes, parts(['experiments', 'timeTravel'], ['access']));
  await app.register(experimentQueryRoutes, parts(['experiments'], []));
  await app.register(cohortRoutes, parts(['timeTravel'], ['access', 'cohorts', 'ingestion']));
  await app.register(batchExportRoutes, parts(['exports', 'timeTravel'], ['access']));
  await app.register(recordingRoutes, { ...parts(['recordings'], ['access', 'ingestion']), config: limits });
  await app.register(remoteConfigRoutes, parts(['projectIdForToken', 'remoteConfig', 'flagCache'], []));
  await app.register(staticSdkRoutes);
  await app.register(consoleRoutes);
  await app.register(surveyRoutes, parts(['surveys', 'projectIdForToken', 'timeTravel'], ['access', 'flags']));
  await app.register(earlyAccessRoutes, parts(['earlyAccess', 'projectIdForToken', 'timeTravel'], ['access', 'flags']));
  await app.register(activityRoutes, parts([], ['access', 'activity']));
  await app.register(evaluationReasonRoutes, parts(['flagSource'], []));
  await app.register(experimentExposureRoutes, parts(['experiments'], ['ingestion']));
  return app;
}
