import { cohortEvents, EventCaptured, EventsCaptured, type CapturedEventData, type RecordedEvent } from '../streams';
import { defineProjection } from './define-projection';
import { canonicalIso } from './ingestion/events-table';
import { stableJson } from './json';
import { projectIdOf } from './ingestion/fold-captured';

/**
 * Flag exposures are kept per (project, flag, distinct id) with the LATEST call time: "sent
 * `$feature_flag_called` at or after `since`" is then one indexed comparison, for any `since`, and
 * re-applying a duplicate event changes nothing (keeping the later time is idempotent), so no event uuid is needed.
 */
function exposureOf(recorded: RecordedEvent, data: CapturedEventData): [number, string, string, string] | null {
  if (data.event !== '$feature_flag_called') return null;
  const flag = (data.properties as Record<string, unknown>).$feature_flag;
  if (typeof flag !== 'string' || flag === '') return null;
  const projectId = projectIdOf(recorded);
  if (projectId === null) return null;
  // The same time the ingestion fold stores for the event, so cohorts and results agree.
  return [projectId, flag, String(data.distinct_id), canonicalIso(data.timestamp, recorded.metadata.recordedAt)];
}

const RECORD_EXPOSURE = `INSERT INTO cohort_flag_exposures (project_id, flag_key, distinct_id, last_timestamp) VALUES (?, ?, ?, ?)
  ON CONFLICT (project_id, flag_key, distinct_id) DO UPDATE SET last_timestamp = excluded.last_timestamp
  WHERE excluded.last_timestamp > cohort_flag_exposures.last_timestamp`;

/**
 * Cohorts and what their membership is computed from. Membership itself is resolved at query time
 * through `person_distinct_ids`, so a later merge moves a person's exposures with them; this fold
 * reads nothing but its own tables and the events it is handed.
 */
export const cohortsProjection = defineProjection({
  name: 'cohorts',
  version: 1,
  store: 'readmodels',
  reads: [...cohortEvents, EventCaptured, EventsCaptured],
  tables: [
    {
      name: 'cohorts',
      columns: {
        id: 'integer',
        project_id: 'integer',
        name: 'text',
        description: 'text',
        filters: 'text',
        flag_key: 'text',
        since: 'text',
        experiment_id: 'integer?',
        created_by: 'integer?',
        created_at: 'text',
        deleted: 'integer',
        version: 'integer',
      },
      primaryKey: ['id'],
      indexes: { cohorts_by_project: ['project_id', 'id'] },
      orderBy: 'id',
    },
    {
      name: 'cohort_flag_exposures',
      columns: { project_id: 'integer', flag_key: 'text', distinct_id: 'text', last_timestamp: 'text' },
      primaryKey: ['project_id', 'flag_key', 'distinct_id'],
      clustered: true,
      orderBy: 'project_id, flag_key, distinct_id',
    },
  ],
  async apply(recorded, db) {
    if (recorded.type === 'EventsCaptured') {
      // Most captured events are not exposures: only those wait for a write.
      for (const data of recorded.data.events) {
        const exposure = exposureOf(recorded, data);
        if (exposure) await db.run(RECORD_EXPOSURE, ...exposure);
      }
      return;
    }
    if (recorded.type === 'EventCaptured') {
      const exposure = exposureOf(recorded, recorded.data);
      if (exposure) await db.run(RECORD_EXPOSURE, ...exposure);
      return;
    }
    const at = recorded.metadata.recordedAt;
    switch (recorded.type) {
      case 'CohortCreated': {
        const d = recorded.data;
        await db.run(
          `INSERT INTO cohorts (id, project_id, name, description, filters, flag_key, since, experiment_id, created_by, created_at, deleted, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1)`,
          d.cohortId,
          d.projectId,
          d.name,
          d.description,
          stableJson(d.filters),
          d.exposure.flagKey,
          d.exposure.since,
          d.experimentId,
          d.createdBy,
          at,
        );
        return;
      }
      case 'CohortDeleted':
        await db.run('UPDATE cohorts SET deleted = 1, version = version + 1 WHERE id = ?', recorded.data.cohortId);
        return;
      default: {
        const never: never = recorded;
        return never;
      }
    }
  },
});
