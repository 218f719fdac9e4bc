import { earlyAccessQueries } from '../../projections/early-access-queries';
import { featureFlagQueries } from '../../projections/feature-flags-queries';
import type { SqlStore } from '../../projections/projection';
import type { SqlSession } from '../../projections/sql';
import type { FlagService } from '../flags/management';
import type { EventLog } from '../store/event-log';
import { EarlyAccessService } from './service';

export { EarlyAccessService, type EarlyAccessServiceDeps } from './service';
export { earlyAccessDecider, type EarlyAccessCommand, type EarlyAccessState } from './decider';
export { ENROLLING_STAGES, enrollmentProperty, newFeatureFlagFilters, slugify, withEnrollment } from './enrollment';
export { earlyAccessBody, publicEarlyAccessBody } from './body';

/**
 * Early access features wired over the runtime's log, read models and flag service: their own
 * queries through the read-model session, the flags' (not yet on the port) through the embedded store.
 */
export function openEarlyAccess(deps: { log: EventLog; session: SqlSession; readmodels: SqlStore; flags: FlagService; waitFor: (position: number, names: readonly string[]) => Promise<void> }) {
  const queries = earlyAccessQueries(deps.session);
  const service = new EarlyAccessService({ log: deps.log, features: queries, flagQueries: featureFlagQueries(deps.readmodels), flags: deps.flags, waitFor: deps.waitFor });
  return { service, queries };
}

export type EarlyAccess = ReturnType<typeof openEarlyAccess>;
