import type { CapturedEventData, CohortEvent, EventsCapturedData, RecordedEvent } from '../streams';
import { canonicalIso } from './ingestion/events-table';
import { stableJson } from './json';
import { projectIdOf } from './ingestion/fold-captured';
import type { Projection, SqlStore } from './projection';

/**
 * Flag exposures are kept per (project, flag, distinct id) with the LATEST call time: "sent
 * `$feature_flag_called` at or after `since`" is then one indexed comparison, for any `since`, and
 * re-applying a duplicate event changes nothing (max is idempotent), so no event uuid is needed.
 */
function recordExposure(recorded: RecordedEvent, data: CapturedEventData, db: SqlStore) {
  if (data.event !== '$feature_flag_called') return;
  const flag = (data.properties as Record<string, unknown>).$feature_flag;
  if (typeof flag !== 'string' || flag === '') return;
  const projectId = projectIdOf(recorded);
  if (projectId === null) return;
  // The same time the ingestion fold stores for the event, so cohorts and results agree.
  const timestamp = canonicalIso(data.timestamp, recorded.metadata.recordedAt);
  db.prepare(
    `INSERT INTO cohort_flag_exposures (project_id, flag_key, distinct_id, last_timestamp) VALUES (?, ?, ?, ?)
     ON CONFLICT (project_id, flag_key, distinct_id) DO UPDATE SET last_timestamp = max(last_timestamp, excluded.last_timestamp)`,
  ).run(projectId, flag, String(data.distinct_id), timestamp);
}

/**
 * Cohorts and what their membership is computed from. Membership itself is resolved at query time
 * through `person_distinct_ids`, so a later merge moves a person's exposures with them; this fold
 * reads nothing but its own tables and the events it is handed.
 */
export const cohortsProjection: Projection = {
  name: 'cohorts',
  version: 1,
  store: 'readmodels',
  handles: ['CohortCreated', 'CohortDeleted', 'EventCaptured', 'EventsCaptured'],
  tables: [
    { name: 'cohorts', orderBy: 'id' },
    { name: 'cohort_flag_exposures', orderBy: 'project_id, flag_key, distinct_id' },
  ],
  setup(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS cohorts (
      id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
      filters TEXT NOT NULL, flag_key TEXT NOT NULL, since TEXT NOT NULL, experiment_id INTEGER,
      created_by INTEGER, created_at TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS cohorts_by_project ON cohorts (project_id, id);
    CREATE TABLE IF NOT EXISTS cohort_flag_exposures (
      project_id INTEGER NOT NULL, flag_key TEXT NOT NULL, distinct_id TEXT NOT NULL, last_timestamp TEXT NOT NULL,
      PRIMARY KEY (project_id, flag_key, distinct_id)) WITHOUT ROWID;`);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    if (recorded.type === 'EventsCaptured') {
      for (const data of (recorded.data as EventsCapturedData).events) recordExposure(recorded, data, db);
      return;
    }
    if (recorded.type === 'EventCaptured') {
      recordExposure(recorded, recorded.data as CapturedEventData, db);
      return;
    }
    const at = recorded.metadata.recordedAt;
    const e = recorded as unknown as CohortEvent;
    switch (e.type) {
      case 'CohortCreated': {
        const d = e.data;
        db.prepare(
          `INSERT INTO cohorts (id, project_id, name, description, filters, flag_key, since, experiment_id, created_by, created_at, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
        ).run(d.cohortId, d.projectId, d.name, d.description, stableJson(d.filters), d.exposure.flagKey, d.exposure.since, d.experimentId, d.createdBy, at);
        return;
      }
      case 'CohortDeleted':
        db.prepare('UPDATE cohorts SET deleted = 1, version = version + 1 WHERE id = ?').run(e.data.cohortId);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};
