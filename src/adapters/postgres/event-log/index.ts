export { PostgresEventLog, type PostgresEventLogOptions } from './postgres-event-log';
