import type { ProjectSettings } from '../../streams';
import { LoadingCache, type MaybePromise } from '../runtime/loading-cache';
import { settingsFields } from './fields';

interface Entry {
  token: string;
  fields: Record<string, unknown>;
}

/**
 * The settings part of each project's remote config, held in memory like flag definitions: the
 * runtime drops a project's entry when the access projection applies an event of that project.
 * Whether the project has flags is read per request from the flag definition cache. A cached entry
 * is answered synchronously; only a miss waits for the read model.
 */
export class RemoteConfigCache {
  private readonly entries: LoadingCache<number, Entry | undefined>;

  constructor(load: (projectId: number) => Promise<{ token: string; settings: ProjectSettings } | undefined>) {
    this.entries = new LoadingCache(
      async (projectId) => {
        const project = await load(projectId);
        return project && { token: project.token, fields: settingsFields(project.settings) };
      },
      (entry) => entry !== undefined,
    );
  }

  invalidate(projectId: number): void {
    this.entries.invalidate(projectId);
  }

  invalidateAll(): void {
    this.entries.clear();
  }

  get(projectId: number): MaybePromise<Entry | undefined> {
    return this.entries.get(projectId);
  }

}
