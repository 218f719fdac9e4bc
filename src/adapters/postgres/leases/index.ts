export { PostgresLeases, type PostgresLeaseOptions } from './postgres-leases';
