export { openRuntime, storeFiles, type Runtime, type RuntimeOptions, type GeoLookup } from './open-runtime';
export { writeCredentialsFile } from './credentials-file';
export { geoLookup } from './geo';
export { rebuild, liveDigests, countingEvents, type CountedProgress } from './replay';
export { verify, replayApart, type ReplayApart } from './verify';
export { openRuntimeOn } from './open-configured-runtime';
export { replayUntil, replayedPoint, ReplayTargetError, REPLAY_FILE, type ReplayedPoint } from './replay-until';
