export { parseAsOf, within, AS_OF_HELP, HistoryNotReadyError, type AsOf } from './as-of';
export { streamAsOf } from './bounded-stream';
export { foldInScratch, type ScratchFold } from './scratch-fold';
export { TimeTravel, type TimeTravelDeps } from './resources';
export { lastPositionAt } from './position-at';
