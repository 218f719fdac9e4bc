import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import type { Config } from '../config';
import type { Runtime } from '../app';
import { authPlugin } from './auth';
import { registerErrorHandling } from './errors';
import { registerJsonBody } from './json-body';
import { runtimePlugin } from './runtime-plugin';
import { healthRoutes } from './routes/health';
import { organizationRoutes } from './routes/organizations';
import { projectRoutes } from './routes/projects';
import { captureRoutes } from './routes/capture';
import { featureFlagRoutes } from './routes/feature-flags';
import { peopleRoutes } from './routes/people';
import { decideRoutes } from './routes/decide';
import { localEvaluationRoutes } from './routes/local-evaluation';
import { experimentRoutes } from './routes/experiments';
import { cohortRoutes } from './routes/cohorts';
import { batchExportRoutes } from './routes/batch-exports';

/** Builds the HTTP app over an opened runtime; routes are encapsulated plugins. */
export async function buildApp(runtime: Runtime, config: Config, options: FastifyServerOptions = {}) {
  const app = Fastify({
    logger: options.logger ?? { level: config.LOG_LEVEL },
    routerOptions: { ignoreTrailingSlash: true },
    // Per-request lines cost more than the ingestion work itself; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: true,
    ...options,
  });
  registerErrorHandling(app);
  await app.register(runtimePlugin, { runtime, config });
  await app.register(authPlugin);
  registerJsonBody(app);
  await app.register(healthRoutes);
  await app.register(projectRoutes);
  await app.register(organizationRoutes);
  await app.register(captureRoutes);
  await app.register(featureFlagRoutes);
  await app.register(peopleRoutes);
  await app.register(decideRoutes);
  await app.register(localEvaluationRoutes);
  await app.register(experimentRoutes);
  await app.register(cohortRoutes);
  await app.register(batchExportRoutes);
  return app;
}
