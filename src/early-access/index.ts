import { earlyAccessQueries } from '../../projections/early-access-queries';
import type { FeatureFlagQueries } from '../../projections/feature-flags-queries';
import type { SqlSession } from '../store/sql';
import type { FlagService } from '../flags/management';
import type { EventLog } from '../store/event-log';
import { EarlyAccessService } from './service';

export { EarlyAccessService, type EarlyAccessServiceDeps } from './service';
export { earlyAccessDecider, type EarlyAccessCommand, type EarlyAccessState } from './decider';
export { ENROLLING_STAGES, enrollmentProperty, newFeatureFlagFilters, slugify, withEnrollment } from './enrollment';
export { earlyAccessBody, publicEarlyAccessBody } from './body';

/** Early access features wired over the runtime's log, read models (through the session) and flag service. */
export function openEarlyAccess(deps: { log: EventLog; session: SqlSession; flags: FlagService; flagQueries: FeatureFlagQueries; waitFor: (position: number, names: readonly string[]) => Promise<void> }) {
  const queries = earlyAccessQueries(deps.session);
  const service = new EarlyAccessService({ log: deps.log, features: queries, flagQueries: deps.flagQueries, flags: deps.flags, waitFor: deps.waitFor });
  return { service, queries };
}

export type EarlyAccess = ReturnType<typeof openEarlyAccess>;
