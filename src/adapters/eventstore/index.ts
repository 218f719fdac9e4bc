export { EventStoreEventLog, type EventStoreEventLogOptions } from './eventstore-event-log';
export { isUnreachable } from './errors';
export { connectionHosts, ConnectionStringError } from './connection';
