import type { FeatureFlagEvent, RecordedEvent } from '../streams';
import type { Projection, SqlStore } from './projection';

/**
 * Feature flags read model. Ids are assigned here, in log order (max + 1), so a replay gives every
 * flag the same id without the command having to allocate one.
 */
export const featureFlagsProjection: Projection = {
  name: 'feature_flags',
  version: 1,
  store: 'readmodels',
  handles: ['FeatureFlagCreated', 'FeatureFlagUpdated', 'FeatureFlagDeleted'],
  tables: [{ name: 'feature_flags', orderBy: 'id' }],
  setup(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS feature_flags (
      id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL,
      filters TEXT NOT NULL, active INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
      ensure_experience_continuity INTEGER NOT NULL, created_at TEXT NOT NULL, created_by INTEGER,
      experiment_id INTEGER, version INTEGER NOT NULL, updated_at TEXT NOT NULL,
      UNIQUE (project_id, key))`);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    const at = recorded.metadata.recordedAt;
    const e = recorded as unknown as FeatureFlagEvent;
    switch (e.type) {
      case 'FeatureFlagCreated': {
        const d = e.data;
        const next = (db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM feature_flags').get() as { id: number }).id;
        db.prepare(
          `INSERT INTO feature_flags (id, project_id, key, name, filters, active, deleted, ensure_experience_continuity,
             created_at, created_by, experiment_id, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 1, ?)`,
        ).run(next, d.projectId, d.key, d.name, JSON.stringify(d.filters), d.active ? 1 : 0, d.ensureExperienceContinuity ? 1 : 0, at, d.createdBy, d.experimentId, at);
        return;
      }
      case 'FeatureFlagUpdated': {
        const d = e.data;
        db.prepare(
          `UPDATE feature_flags SET name = coalesce(?, name), filters = coalesce(?, filters), active = coalesce(?, active),
             ensure_experience_continuity = coalesce(?, ensure_experience_continuity), version = version + 1, updated_at = ?
           WHERE project_id = ? AND key = ?`,
        ).run(
          d.name ?? null,
          d.filters ? JSON.stringify(d.filters) : null,
          d.active === undefined ? null : d.active ? 1 : 0,
          d.ensureExperienceContinuity === undefined ? null : d.ensureExperienceContinuity ? 1 : 0,
          at,
          d.projectId,
          d.key,
        );
        return;
      }
      case 'FeatureFlagDeleted':
        db.prepare('UPDATE feature_flags SET deleted = 1, active = 0, version = version + 1, updated_at = ? WHERE project_id = ? AND key = ?').run(
          at,
          e.data.projectId,
          e.data.key,
        );
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};
