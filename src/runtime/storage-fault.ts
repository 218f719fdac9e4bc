/**
 * Whether an error met while applying events is a fault of the store rather than of the event (the
 * projection then stops instead of quarantining it). The read-model store's adapter decides, from its
 * engine's error codes, and marks such errors; the runtime only asks the port.
 */
export { isStorageFault } from '../store/storage-fault';
