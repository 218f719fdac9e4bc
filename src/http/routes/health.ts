import type { FastifyPluginAsync } from 'fastify';
import { quarantineHealth } from '../quarantine-health';

/** Liveness plus where the log and each projection stand, for operators and load balancers. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/_health', async (_request, reply) => {
    const { runner, log } = app.runtime;
    const failures = runner.failures();
    const healthy = Object.keys(failures).length === 0;
    // A storage fault means writes are refused (503): load balancers must stop sending them here.
    const storage = app.runtime.storage.fault();
    const quarantine = quarantineHealth(runner);
    return reply.status(healthy && !storage ? 200 : 503).send({
      status: storage ? 'unavailable' : healthy && !quarantine.degraded ? 'ok' : 'degraded',
      storage: storage ? { status: 'fault', ...storage } : { status: 'ok' },
      log_head: await log.head(),
      projections: runner.checkpoints(),
      failures,
      quarantined: quarantine.quarantined,
    });
  });
};
