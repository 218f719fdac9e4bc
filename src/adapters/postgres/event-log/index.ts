export { PostgresEventLog, type PostgresEventLogOptions } from './postgres-event-log';
export { isUnreachable } from './reachability';
