import type { Runtime } from './open-runtime';

/**
 * Starts the runtime's runner and resolves once the read models can be served. Own read models
 * are folded to the log's head first (with `catchUp`, those being rebuilt side by side too). Shared ones are folded by whichever process holds the
 * projections lease (this one, if it has the role and wins it): this waits until they exist and,
 * with `catchUp`, until they include the log's head (the CLI's commands read what they just wrote).
 * `follow: false` folds own read models to the head once and no further: for a command that only
 * appends (`import`), whose records whoever serves the directory folds (a running service, or the
 * next start), instead of this process folding them a second time beside it.
 */
export async function startProjections(runtime: Runtime, options: { catchUp: boolean; follow?: boolean }): Promise<void> {
  if (runtime.sharedReadModels) {
    runtime.runner.start();
    await runtime.ready;
    if (options.catchUp) await runtime.runner.catchUp();
    return;
  }
  await runtime.ready;
  // A service serves once the projections that are not being rebuilt reach the head; rebuilds
  // (side by side) go on while it follows the log. The CLI's commands wait for them.
  await runtime.runner.catchUp({ rebuilds: options.catchUp ? 'finish' : 'background' });
  if (options.follow !== false) runtime.runner.start();
}
