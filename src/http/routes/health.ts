import type { FastifyPluginAsync } from 'fastify';
import { StorageUnavailableError, type StorageFault } from '../../store/storage-fault';
import { quarantineHealth } from '../quarantine-health';

/** Liveness plus where the log and each projection stand, for operators and load balancers. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get('/_health', async (_request, reply) => {
    const { runner, log } = app.runtime;
    const failures = runner.failures();
    const healthy = Object.keys(failures).length === 0;
    // An unreachable log (a lost database server) is a storage fault like the others: the health
    // body still answers, with the reason, and no head.
    let logHead: number | null = null;
    let unreachable: StorageFault | null = null;
    try {
      logHead = await log.head();
    } catch (err) {
      if (!(err instanceof StorageUnavailableError)) throw err;
      unreachable = err.fault;
    }
    // A storage fault means writes are refused (503): load balancers must stop sending them here.
    const storage = app.runtime.storage.fault() ?? unreachable;
    const quarantine = quarantineHealth(runner);
    return reply.status(healthy && !storage ? 200 : 503).send({
      status: storage ? 'unavailable' : healthy && !quarantine.degraded ? 'ok' : 'degraded',
      storage: storage ? { status: 'fault', ...storage } : { status: 'ok' },
      log_head: logHead,
      projections: runner.checkpoints(),
      failures,
      quarantined: quarantine.quarantined,
    });
  });
};
