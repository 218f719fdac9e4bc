/**
 * What one process does. `api` serves HTTP; `ingest` appends what capture published to NATS
 * (NATS_URL) to the log; `projections` folds the log into the read models; `exports` runs the
 * batch-export scheduler and worker. Any number of processes may serve the API; with a shared log
 * the others run in one process at a time (a lease decides which).
 */
export const ROLE_NAMES = ['api', 'ingest', 'projections', 'exports'] as const;

/** ROLES when unset: every role, `ingest` only when there is a transport to consume (NATS_URL). */
export const defaultRoles = (nats: boolean): string => (nats ? 'api,ingest,projections,exports' : 'api,projections,exports');
export type Role = (typeof ROLE_NAMES)[number];
export type Roles = ReadonlySet<Role>;

const isRole = (name: string): name is Role => (ROLE_NAMES as readonly string[]).includes(name);

/** Reads ROLES: a comma-separated, non-empty subset of api, projections, exports. */
export function parseRoles(value: string): Roles | { error: string } {
  const names = value.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const unknown = names.filter((n) => !isRole(n));
  if (unknown.length) return { error: `unknown role ${JSON.stringify(unknown[0])}: expected a comma-separated subset of ${ROLE_NAMES.join(', ')}` };
  if (!names.length) return { error: `expected a comma-separated subset of ${ROLE_NAMES.join(', ')}` };
  return new Set(names.filter(isRole));
}
