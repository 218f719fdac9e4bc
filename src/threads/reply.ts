import type { Worker } from 'node:worker_threads';

/**
 * The reply to one request sent to a worker thread, told apart by its id (a thread may carry
 * several in turn). `send` runs once the listeners are in place, so no reply can be missed; the
 * promise rejects when the thread fails or exits before answering, so a caller never waits forever.
 */
export function replyFrom<T extends { id: number }>(thread: Worker, id: number, threadName: string, send: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.id !== id) return;
      cleanup();
      resolve(message);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number) => onError(new Error(`${threadName} exited (${code})`));
    const cleanup = () => {
      thread.off('message', onMessage);
      thread.off('error', onError);
      thread.off('exit', onExit);
    };
    thread.on('message', onMessage);
    thread.on('error', onError);
    thread.on('exit', onExit);
    send();
  });
}
