// Worker-thread entry: runs every projection against the shared SQLite files, so folding the log
// uses the second core while the main thread answers HTTP and appends.
import { parentPort, workerData } from 'node:worker_threads';
import { contracts } from '../../../streams';
import { allProjections, type StoreName } from '../../../projections';
import { ContractedEventLog } from '../../store/contracted-log';
import { SqliteEventLog } from '../../store/sqlite/event-log';
import { openSqlite, type SqliteDatabase } from '../../store/sqlite/open';
import { niceThisThread } from '../../threads';
import { ProjectionRunner } from '../projection-runner';
import { storeFiles } from '../store-files';
import type { FromWorker, ToWorker, WorkerConfig } from './messages';

const config = workerData as WorkerConfig;
niceThisThread(config.nice ?? 0);
const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);

const files = storeFiles(config.dataDir);
const modelFiles = storeFiles(config.readModelDir ?? config.dataDir);
const rawLog = new SqliteEventLog(files.log, { durability: config.durability });
const log = new ContractedEventLog(rawLog, contracts);
const stores: Record<StoreName, SqliteDatabase> = {
  readmodels: openSqlite(modelFiles.readmodels, { durability: config.durability, autoCheckpointPages: config.backstopCheckpointPages }),
  analytics: openSqlite(modelFiles.analytics, { durability: config.durability, autoCheckpointPages: config.backstopCheckpointPages }),
};
const runner = new ProjectionRunner(log, stores, allProjections);

const progress = () =>
  send({ type: 'progress', checkpoints: runner.checkpoints(), failures: runner.failures(), quarantines: runner.quarantines() });
runner.progress$.subscribe(progress);
// One stub per (type, project) is all a cache needs; thousands of ingested events stay in this thread.
runner.applied$.subscribe(({ projection, events }) => {
  const seen = new Map<string, (typeof events)[number]>();
  for (const e of events) seen.set(`${e.type}:${e.metadata.projectId}`, e);
  send({
    type: 'applied',
    projection,
    events: [...seen.values()].map((e) => ({ type: e.type, position: e.position, streamId: e.streamId, metadata: { projectId: e.metadata.projectId } })),
  });
});

port.on('message', async (m: ToWorker) => {
  if (m.type === 'appended') rawLog.notifyAppended(m.position);
  if (m.type === 'stop') {
    runner.stop();
    await log.close();
    stores.readmodels.close();
    stores.analytics.close();
    send({ type: 'stopped' });
    port.close();
  }
});

send({ type: 'ready' });
progress();
runner.start();
