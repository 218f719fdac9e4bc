import { featureFlagEvents } from '../streams';
import { defineProjection } from './define-projection';

/**
 * Feature flags read model. Ids are assigned here, in log order (max + 1), so a replay gives every
 * flag the same id without the command having to allocate one.
 */
export const featureFlagsProjection = defineProjection({
  name: 'feature_flags',
  version: 1,
  store: 'readmodels',
  reads: featureFlagEvents,
  invalidates: ['flag-definitions'],
  tables: [
    {
      name: 'feature_flags',
      columns: {
        id: 'integer',
        project_id: 'integer',
        key: 'text',
        name: 'text',
        filters: 'text',
        active: 'integer',
        deleted: 'integer',
        ensure_experience_continuity: 'integer',
        created_at: 'text',
        created_by: 'integer?',
        experiment_id: 'integer?',
        version: 'integer',
        updated_at: 'text',
      },
      primaryKey: ['id'],
      unique: [['project_id', 'key']],
      orderBy: 'id',
    },
  ],
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    switch (e.type) {
      case 'FeatureFlagCreated': {
        const d = e.data;
        const next = (await db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM feature_flags'))!.id;
        await db.run(
          `INSERT INTO feature_flags (id, project_id, key, name, filters, active, deleted, ensure_experience_continuity,
             created_at, created_by, experiment_id, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 1, ?)`,
          next,
          d.projectId,
          d.key,
          d.name,
          JSON.stringify(d.filters),
          d.active ? 1 : 0,
          d.ensureExperienceContinuity ? 1 : 0,
          at,
          d.createdBy,
          d.experimentId,
          at,
        );
        return;
      }
      case 'FeatureFlagUpdated': {
        const d = e.data;
        await db.run(
          `UPDATE feature_flags SET name = coalesce(?, name), filters = coalesce(?, filters), active = coalesce(?, active),
             ensure_experience_continuity = coalesce(?, ensure_experience_continuity), version = version + 1, updated_at = ?
           WHERE project_id = ? AND key = ?`,
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
        await db.run(
          'UPDATE feature_flags SET deleted = 1, active = 0, version = version + 1, updated_at = ? WHERE project_id = ? AND key = ?',
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
});
