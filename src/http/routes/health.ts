import type { FastifyPluginAsync } from 'fastify';
import { quarantineHealth } from '../quarantine-health';

/** Liveness plus where the log and each projection stand, for operators and load balancers. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/_health', async (_request, reply) => {
    const { runner, log } = app.runtime;
    const failures = runner.failures();
    const healthy = Object.keys(failures).length === 0;
    const quarantine = quarantineHealth(runner);
    return reply.status(healthy ? 200 : 503).send({
      status: healthy && !quarantine.degraded ? 'ok' : 'degraded',
      log_head: await log.head(),
      projections: runner.checkpoints(),
      failures,
      quarantined: quarantine.quarantined,
    });
  });
};
