export { InProcessLeases } from './leases';
