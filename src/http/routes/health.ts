import type { FastifyPluginAsync } from 'fastify';
import { StorageUnavailableError, type StorageFault } from '../../store/storage-fault';
import { z } from 'zod';
import { quarantineHealth } from '../quarantine-health';
import type { Parts } from '../runtime-parts';

const Health = z
  .object({
    status: z.enum(['ok', 'degraded', 'unavailable']).meta({ description: 'degraded: some events quarantined or a projection stopped; unavailable: a storage fault, or the ingestion transport is unreachable.' }),
    storage: z.looseObject({ status: z.enum(['ok', 'fault']) }),
    log_head: z.number().int().nullable().meta({ description: 'Position of the last event in the log.' }),
    log_head_hash: z
      .string()
      .nullable()
      .meta({ description: "Hash of the log's last record in its hash chain (docs/auditing.md); null before the first chained record or while the log is unreachable." }),
    projections: z.record(z.string(), z.unknown()).meta({ description: 'Checkpoint per projection.' }),
    failures: z.record(z.string(), z.unknown()).meta({ description: 'Stopped projections and why.' }),
    rebuilds: z
      .record(z.string(), z.object({ version: z.number().int(), position: z.number().int() }))
      .meta({ description: 'Projections whose new version is being built beside the one serving: the version and how far in the log it has come.' }),
    quarantined: z.looseObject({ count: z.number().int(), latest: z.unknown() }),
    ingest_transport: z
      .object({
        kind: z.enum(['direct', 'nats']),
        status: z.enum(['ok', 'unavailable']),
        detail: z.string().optional(),
        consumers: z
          .record(z.string(), z.object({ pending: z.number().int(), ack_pending: z.number().int(), oldest_age_seconds: z.number().nullable() }))
          .optional(),
      })
      .meta({ description: 'How ingestion reaches the log: direct appends, or NATS JetStream with the ingest consumers\' lag (messages pending, delivered but unacknowledged, age of the oldest not yet appended). Unavailable: capture answers 503 transport_unavailable.' }),
  })
  .meta({ id: 'Health' });
// Written as built: the health answer must never depend on more than the runtime it reports on.
const docs = { response: { 200: Health, 503: Health.meta({ description: 'A projection stopped or storage is failing: take this instance out of rotation.' }) } };

/** Liveness plus where the log and each projection stand, for operators and load balancers. */
export const healthRoutes: FastifyPluginAsync<Parts<'runner' | 'log' | 'storage' | 'transport'>> = async (app, parts) => {
  app.get('/_health', { config: { docs }, schema: { summary: 'Liveness, the log head and each projection (no auth).', tags: ['health'] } }, async (_request, reply) => {
    const { runner, log } = parts;
    const failures = runner.failures();
    const healthy = Object.keys(failures).length === 0;
    // An unreachable log (a lost database server) is a storage fault like the others: the health
    // body still answers, with the reason, and no head.
    let logHead: number | null = null;
    let headHash: string | null = null;
    let unreachable: StorageFault | null = null;
    try {
      const chain = await log.chainHead();
      logHead = chain.position;
      headHash = chain.hash;
    } catch (err) {
      if (!(err instanceof StorageUnavailableError)) throw err;
      unreachable = err.fault;
    }
    // A storage fault means writes are refused (503): load balancers must stop sending them here.
    const storage = parts.storage.fault() ?? unreachable;
    const quarantine = quarantineHealth(runner);
    const transport = await parts.transport.status();
    const down = storage !== null || transport.status === 'unavailable';
    return reply.status(healthy && !down ? 200 : 503).send({
      status: down ? 'unavailable' : healthy && !quarantine.degraded ? 'ok' : 'degraded',
      storage: storage ? { status: 'fault', ...storage } : { status: 'ok' },
      log_head: logHead,
      log_head_hash: headHash,
      projections: runner.checkpoints(),
      failures,
      rebuilds: runner.rebuilds(),
      quarantined: quarantine.quarantined,
      ingest_transport: transport,
    });
  });
};
