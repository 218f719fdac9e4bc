// Takes a lease on PostgreSQL, says so, and holds it until killed.
import { PostgresLeases } from '../../../src/adapters/postgres/leases';

const [connection, namespace, name] = process.argv.slice(2);
const leases = new PostgresLeases({ connection, namespace });
await leases.acquire(name);
process.stdout.write('held\n');
setInterval(() => {}, 1000);
