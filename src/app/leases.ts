import { InProcessLeases } from '../adapters/in-process/leases';
import type { EventLogChoice, ReadModelsChoice } from '../config';
import type { Leases } from '../store/leases';

/**
 * The leases that decide which process runs a once-per-deployment role: advisory locks on the
 * shared PostgreSQL (the read models' database, else the log's), namespaced by its schema; in-process
 * ones when nothing is shared through PostgreSQL (then one process owns everything anyway).
 */
export async function openLeases(eventLog: EventLogChoice, readModels: ReadModelsChoice): Promise<Leases> {
  const shared = readModels.kind === 'postgres' ? readModels : eventLog.kind === 'postgres' ? eventLog : null;
  if (!shared) return new InProcessLeases();
  const { PostgresLeases } = await import('../adapters/postgres/leases');
  return new PostgresLeases({ connection: shared.url, namespace: shared.schema });
}
