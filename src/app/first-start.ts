import { bootstrap, type Credentials } from '../access';
import type { Leases } from '../store/leases';
import type { Runtime } from './open-runtime';

/** Held while a process looks for an organization and creates the first one when there is none. */
const BOOTSTRAP_LEASE = 'bootstrap';

/**
 * First start of a store: the default organization, project, user and an all-scopes personal key,
 * when the store has no organization yet; its credentials, or null when it had one.
 *
 * With `leases` (a log shared by processes that fold it into read models of their own), processes
 * starting together take turns, and each looks only once its read models hold the whole log, so
 * what an earlier one created is seen instead of a second organization being made. Without them
 * the log is this process's own.
 */
export async function bootstrapIfEmpty(runtime: Runtime, leases: Leases | null): Promise<Credentials | null> {
  const create = async () => {
    if (await runtime.queries.access.firstOrganization()) return null;
    return (await bootstrap(runtime.access, runtime.queries.access, { type: 'system' })).credentials;
  };
  if (!leases) return create();
  const lease = await leases.acquire(BOOTSTRAP_LEASE);
  try {
    await runtime.runner.waitFor(await runtime.log.head(), ['access']);
    return await create();
  } finally {
    await lease.release();
  }
}
