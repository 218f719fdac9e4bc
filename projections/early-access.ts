import { earlyAccessFeatureEvents, FeatureFlagCreated } from '../streams';
import { defineProjection } from './define-projection';
import { stableJson } from './json';
import { changedFields } from './changed-fields';

/**
 * Early access features. A feature created with `flagCreated: false` waits for its flag: the
 * flag key's one and only `FeatureFlagCreated` (a key is claimed for ever by its stream) links it
 * when it follows the feature in the log. A flag created before the feature is someone else's and
 * links nothing, so a feature is visible only with the flag made for it. Each row keeps the log
 * position of its creation (`created_position`), which orders the features the same way on every
 * rebuild and on every engine.
 */
export const earlyAccessProjection = defineProjection({
  name: 'early_access',
  // 2: the creation's log position replaces SQLite's rowid as the order of the rows.
  version: 2,
  store: 'readmodels',
  reads: [...earlyAccessFeatureEvents, FeatureFlagCreated],
  tables: [
    {
      name: 'early_access_features',
      columns: {
        id: 'text',
        project_id: 'integer',
        name: 'text',
        stage: 'text',
        fields: 'text',
        flag_key: 'text',
        flag_linked: 'integer',
        gone: 'integer',
        created_by: 'integer?',
        created_at: 'text',
        updated_at: 'text',
        version: 'integer',
        created_position: 'integer',
      },
      primaryKey: ['id'],
      indexes: {
        early_access_by_project: ['project_id', 'created_at'],
        early_access_by_flag: ['project_id', 'flag_key'],
      },
      orderBy: 'id',
    },
  ],
  async apply(recorded, db) {
    const at = recorded.metadata.recordedAt;
    if (recorded.type === 'FeatureFlagCreated') {
      const f = recorded.data;
      // The feature the service appended just before this flag (it queues creates per key): the
      // latest one still waiting for this key, under the flag name the service gives. An older one
      // whose creation crashed before its flag stays invisible.
      await db.run(
        `UPDATE early_access_features SET flag_linked = 1 WHERE id = (SELECT id FROM early_access_features
           WHERE project_id = ? AND flag_key = ? AND flag_linked = 0 AND gone = 0 AND ? = 'Feature Flag for Early Access Feature ' || name
           ORDER BY created_position DESC LIMIT 1)`,
        f.projectId,
        f.key,
        f.name,
      );
      return;
    }
    switch (recorded.type) {
      case 'EarlyAccessFeatureCreated': {
        const d = recorded.data;
        await db.run(
          `INSERT INTO early_access_features (id, project_id, name, stage, fields, flag_key, flag_linked, gone, created_by, created_at, updated_at, version, created_position)
           VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 1, ?)`,
          d.featureId,
          d.projectId,
          d.fields.name,
          d.fields.stage,
          stableJson(d.fields),
          d.flagKey,
          d.flagCreated ? 1 : 0,
          d.createdBy,
          at,
          at,
          recorded.position,
        );
        return;
      }
      case 'EarlyAccessFeatureUpdated': {
        const fields = await changedFields(db, 'early_access_features', recorded.data.featureId, recorded.data.changes);
        if (!fields) return;
        await db.run(
          'UPDATE early_access_features SET name = ?, stage = ?, fields = ?, updated_at = ?, version = version + 1 WHERE id = ?',
          String(fields.name),
          String(fields.stage),
          stableJson(fields),
          at,
          recorded.data.featureId,
        );
        return;
      }
      case 'EarlyAccessFeatureAbandoned':
      case 'EarlyAccessFeatureDeleted':
        await db.run('UPDATE early_access_features SET gone = 1, updated_at = ?, version = version + 1 WHERE id = ?', at, recorded.data.featureId);
        return;
      default: {
        const never: never = recorded;
        return never;
      }
    }
  },
});
