import { InProcessLeases } from '../../../src/adapters/in-process';
import { leaseContract } from './contract';

leaseContract('in-process (embedded)', async () => {
  const leases = new InProcessLeases();
  return { a: leases, b: leases, close: () => leases.close() };
});
