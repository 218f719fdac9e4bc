import { excludeSystemEvents, type Filter } from '@eventstore/db-client';

/**
 * The server-side filter of the live `$all` subscription: no system events (event types starting
 * with `$`: stream metadata, statistics, scavenges, projection state, the `$>` links of the system
 * projections' `$ce-` / `$et-` streams). A gRPC filter holds one predicate, on event types or on
 * stream names, not both: system streams are excluded by isSystemEvent on the client side too.
 */
export function logFilter(): Filter {
  return excludeSystemEvents();
}

/** Whether an event of `$all` belongs to the server rather than to this log. */
export function isSystemEvent(event: { type: string; streamId: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}
