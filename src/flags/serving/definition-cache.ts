import { createHash } from 'node:crypto';
import type { FeatureFlagRow } from '../../../projections/feature-flags-queries';
import { LoadingCache, type MaybePromise } from '../../runtime/loading-cache';
import type { FlagDefinition } from '../types';

export interface FlagDefinitionsEntry {
  definitions: FlagDefinition[];
  rows: FeatureFlagRow[];
  etag: string;
}

/**
 * Flag definitions per project, held in memory: the hot path never queries for them. The projection
 * runner tells us (via `invalidate`) when a project's flags changed; the next request reloads. A
 * cached project is answered synchronously; only a miss waits for the read model.
 */
export class FlagDefinitionCache {
  private readonly entries: LoadingCache<number, FlagDefinitionsEntry>;

  constructor(load: (projectId: number) => Promise<FeatureFlagRow[]>) {
    this.entries = new LoadingCache(async (projectId) => {
      const rows = await load(projectId);
      const definitions = rows.map(toDefinition);
      const etag = createHash('sha1')
        .update(JSON.stringify(rows.map((r) => [r.id, r.version])))
        .digest('hex');
      return { definitions, rows, etag };
    });
  }

  invalidate(projectId: number): void {
    this.entries.invalidate(projectId);
  }

  invalidateAll(): void {
    this.entries.clear();
  }

  get(projectId: number): MaybePromise<FlagDefinitionsEntry> {
    return this.entries.get(projectId);
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
