import type { EarlyAccessFeatureEvent, FeatureFlagEvent, RecordedEvent } from '../streams';
import { stableJson } from './json';
import type { Projection, SqlStore } from './projection';

/**
 * Early access features. A feature created with `flagCreated: false` waits for its flag: the
 * flag key's one and only `FeatureFlagCreated` (a key is claimed for ever by its stream) links it
 * when it follows the feature in the log. A flag created before the feature is someone else's and
 * links nothing, so a feature is visible only with the flag made for it. Rows are inserted in log
 * order, so rowid order is log order on every rebuild.
 */
export const earlyAccessProjection: Projection = {
  name: 'early_access',
  version: 1,
  store: 'readmodels',
  handles: ['EarlyAccessFeatureCreated', 'EarlyAccessFeatureUpdated', 'EarlyAccessFeatureAbandoned', 'EarlyAccessFeatureDeleted', 'FeatureFlagCreated'],
  tables: [{ name: 'early_access_features', orderBy: 'id' }],
  setup(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS early_access_features (
      id TEXT PRIMARY KEY, project_id INTEGER NOT NULL, name TEXT NOT NULL, stage TEXT NOT NULL, fields TEXT NOT NULL,
      flag_key TEXT NOT NULL, flag_linked INTEGER NOT NULL, gone INTEGER NOT NULL DEFAULT 0,
      created_by INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, version INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS early_access_by_project ON early_access_features (project_id, created_at);
    CREATE INDEX IF NOT EXISTS early_access_by_flag ON early_access_features (project_id, flag_key);`);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    const at = recorded.metadata.recordedAt;
    if (recorded.type === 'FeatureFlagCreated') {
      const f = (recorded as unknown as Extract<FeatureFlagEvent, { type: 'FeatureFlagCreated' }>).data;
      // The feature the service appended just before this flag (it queues creates per key): the
      // latest one still waiting for this key, under the flag name the service gives. An older one
      // whose creation crashed before its flag stays invisible.
      db.prepare(
        `UPDATE early_access_features SET flag_linked = 1 WHERE rowid = (SELECT max(rowid) FROM early_access_features
           WHERE project_id = ? AND flag_key = ? AND flag_linked = 0 AND gone = 0 AND ? = 'Feature Flag for Early Access Feature ' || name)`,
      ).run(f.projectId, f.key, f.name);
      return;
    }
    const e = recorded as unknown as EarlyAccessFeatureEvent;
    switch (e.type) {
      case 'EarlyAccessFeatureCreated': {
        const d = e.data;
        db.prepare(
          `INSERT INTO early_access_features (id, project_id, name, stage, fields, flag_key, flag_linked, created_by, created_at, updated_at, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
        ).run(d.featureId, d.projectId, d.fields.name, d.fields.stage, stableJson(d.fields), d.flagKey, d.flagCreated ? 1 : 0, d.createdBy, at, at);
        return;
      }
      case 'EarlyAccessFeatureUpdated': {
        const current = db.prepare('SELECT fields FROM early_access_features WHERE id = ?').get(e.data.featureId) as { fields: string } | undefined;
        if (!current) return;
        const fields = { ...(JSON.parse(current.fields) as Record<string, unknown>), ...e.data.changes };
        db.prepare('UPDATE early_access_features SET name = ?, stage = ?, fields = ?, updated_at = ?, version = version + 1 WHERE id = ?').run(
          String(fields.name),
          String(fields.stage),
          stableJson(fields),
          at,
          e.data.featureId,
        );
        return;
      }
      case 'EarlyAccessFeatureAbandoned':
      case 'EarlyAccessFeatureDeleted':
        db.prepare('UPDATE early_access_features SET gone = 1, updated_at = ?, version = version + 1 WHERE id = ?').run(at, e.data.featureId);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};
