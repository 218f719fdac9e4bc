import type { ProjectSettings } from '../../streams';
import { settingsFields } from './fields';

interface Entry {
  token: string;
  fields: Record<string, unknown>;
}

/**
 * The settings part of each project's remote config, held in memory like flag definitions: the
 * runtime drops a project's entry when the access projection applies an event of that project.
 * Whether the project has flags is read per request from the flag definition cache.
 */
export class RemoteConfigCache {
  private readonly entries = new Map<number, Entry>();

  constructor(private readonly load: (projectId: number) => { token: string; settings: ProjectSettings } | undefined) {}

  invalidate(projectId: number): void {
    this.entries.delete(projectId);
  }

  get(projectId: number): Entry | undefined {
    let entry = this.entries.get(projectId);
    if (!entry) {
      const project = this.load(projectId);
      if (!project) return undefined;
      entry = { token: project.token, fields: settingsFields(project.settings) };
      this.entries.set(projectId, entry);
    }
    return entry;
  }
}
