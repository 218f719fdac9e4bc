/** Worker threads that run TypeScript modules (the projection worker, export readers). */
export { startTsWorker } from './ts-worker';
export { niceThisThread } from './priority';
export { replyFrom } from './reply';
