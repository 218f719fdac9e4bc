// Worker-thread entry for the thread priority test: nices itself and reports what the OS says.
import { readlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { niceThisThread } from '../../../src/threads';

const applied = niceThisThread((workerData as { nice: number }).nice);
const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
parentPort!.postMessage({ applied, tid, nice: getPriority(tid) });
