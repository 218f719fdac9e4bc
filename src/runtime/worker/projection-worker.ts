// The projection thread's side of the remote runner: folds the log on the second core while the
// main thread answers HTTP and appends. Its entry module (in the composition root) opens the log and
// the stores, then hands them here; this side sees ports only.
import type { MessagePort } from 'node:worker_threads';
import type { ReadModelProjection, StoreName } from '../../store/read-model-projection';
import type { AppendNotifications } from '../../store/append-notifications';
import type { EventLog } from '../../store/event-log';
import type { ReadModelStore } from '../../store/read-models';
import { ProjectionRunner } from '../projection-runner';
import type { ChangeRecorder } from '../change-log';
import type { FromWorker, ToWorker } from './messages';

export interface ProjectionThread {
  /** The log with the event contracts in front (reads upcast). */
  log: EventLog;
  /** This thread's handle's notices: the main thread's appends wake its subscriptions through them. */
  notifications: AppendNotifications;
  stores: Record<StoreName, ReadModelStore>;
  projections: readonly ReadModelProjection[];
  /** On shared read models: records what each batch changed for the processes that follow. */
  changes?: ChangeRecorder;
  /** Closes the log handle and the stores. */
  close(): Promise<void>;
}

/** Runs every projection and reports progress to the main thread until it says stop. */
export function serveProjections(port: MessagePort, thread: ProjectionThread): void {
  const send = (m: FromWorker) => port.postMessage(m);
  const runner = new ProjectionRunner(thread.log, thread.stores, thread.projections, { notifications: thread.notifications, changes: thread.changes });

  const progress = () =>
    send({ type: 'progress', checkpoints: runner.checkpoints(), failures: runner.failures(), quarantines: runner.quarantines(), rebuilds: runner.rebuilds() });
  runner.progress$.subscribe(progress);
  // One stub per (type, project) is all a cache needs; thousands of ingested events stay in this thread.
  runner.applied$.subscribe(({ projection, events, unknown }) => {
    if (unknown) return send({ type: 'applied', projection, events: [], unknown });
    const seen = new Map<string, (typeof events)[number]>();
    for (const e of events) seen.set(`${e.type}:${e.metadata.projectId}`, e);
    send({
      type: 'applied',
      projection,
      events: [...seen.values()].map((e) => ({ type: e.type, position: e.position, streamId: e.streamId, metadata: { projectId: e.metadata.projectId } })),
    });
  });

  port.on('message', async (m: ToWorker) => {
    if (m.type === 'appended') thread.notifications.notify(m.position);
    if (m.type === 'stop') {
      runner.stop();
      await thread.close();
      send({ type: 'stopped' });
      port.close();
    }
  });

  runner.ready.then(
    () => {
      // Progress first: the main thread knows which projections are rebuilding once it is ready.
      progress();
      send({ type: 'ready' });
      runner.start();
    },
    () => {
      send({ type: 'ready' });
      progress();
    },
  );
}
