import { createHash } from 'node:crypto';
import type { FeatureFlagRow } from '../../../projections/feature-flags-queries';
import type { FlagDefinition } from '../types';

interface Entry {
  definitions: FlagDefinition[];
  rows: FeatureFlagRow[];
  etag: string;
}

/**
 * Flag definitions per project, held in memory: the hot path never queries for them. The projection
 * runner tells us (via `invalidate`) when a project's flags changed; the next request reloads.
 */
export class FlagDefinitionCache {
  private readonly entries = new Map<number, Entry>();

  constructor(private readonly load: (projectId: number) => FeatureFlagRow[]) {}

  invalidate(projectId: number): void {
    this.entries.delete(projectId);
  }

  invalidateAll(): void {
    this.entries.clear();
  }

  get(projectId: number): Entry {
    let entry = this.entries.get(projectId);
    if (!entry) {
      const rows = this.load(projectId);
      const definitions = rows.map(toDefinition);
      const etag = createHash('sha1')
        .update(JSON.stringify(rows.map((r) => [r.id, r.version])))
        .digest('hex');
      entry = { definitions, rows, etag };
      this.entries.set(projectId, entry);
    }
    return entry;
  }
}

export const toDefinition = (r: FeatureFlagRow): FlagDefinition => ({
  id: r.id,
  key: r.key,
  name: r.name,
  active: r.active,
  deleted: r.deleted,
  ensure_experience_continuity: r.ensure_experience_continuity,
  version: r.version,
  filters: r.filters,
});
