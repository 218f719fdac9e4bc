import type { CapturedEventData, EventsCapturedData, RecordedEvent, SurveyEvent } from '../streams';
import { projectIdOf } from './ingestion/fold-captured';
import { stableJson } from './json';
import type { Projection, SqlStore } from './projection';

/**
 * One row per `survey sent` submission: partial submits of one response share `$survey_submission_id`
 * (PostHog counts them once), older SDKs send none and each event counts. INSERT OR IGNORE makes
 * a replayed duplicate count once too.
 */
function recordResponse(recorded: RecordedEvent, data: CapturedEventData, db: SqlStore) {
  if (data.event !== 'survey sent') return;
  const props = data.properties as Record<string, unknown>;
  const surveyId = props.$survey_id;
  if (typeof surveyId !== 'string' || surveyId === '') return;
  const projectId = projectIdOf(recorded);
  if (projectId === null) return;
  const submission = typeof props.$survey_submission_id === 'string' && props.$survey_submission_id !== '' ? `s:${props.$survey_submission_id}` : `e:${data.uuid}`;
  db.prepare('INSERT OR IGNORE INTO survey_responses (project_id, survey_id, submission) VALUES (?, ?, ?)').run(projectId, surveyId, submission);
}

/** Surveys (their fields as one JSON document) and the responses counted per survey. */
export const surveysProjection: Projection = {
  name: 'surveys',
  version: 1,
  store: 'readmodels',
  handles: ['SurveyCreated', 'SurveyUpdated', 'SurveyTargetingFlagChanged', 'SurveyDeleted', 'EventCaptured', 'EventsCaptured'],
  tables: [
    { name: 'surveys', orderBy: 'id' },
    { name: 'survey_responses', orderBy: 'project_id, survey_id, submission' },
  ],
  setup(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS surveys (
      id TEXT PRIMARY KEY, project_id INTEGER NOT NULL, name TEXT NOT NULL, archived INTEGER NOT NULL,
      fields TEXT NOT NULL, internal_flag_key TEXT NOT NULL, targeting_flag_key TEXT, created_by INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
      deleted INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS surveys_by_project ON surveys (project_id, created_at);
    CREATE TABLE IF NOT EXISTS survey_responses (
      project_id INTEGER NOT NULL, survey_id TEXT NOT NULL, submission TEXT NOT NULL,
      PRIMARY KEY (project_id, survey_id, submission)) WITHOUT ROWID;`);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    if (recorded.type === 'EventsCaptured') {
      for (const data of (recorded.data as EventsCapturedData).events) recordResponse(recorded, data, db);
      return;
    }
    if (recorded.type === 'EventCaptured') {
      recordResponse(recorded, recorded.data as CapturedEventData, db);
      return;
    }
    const at = recorded.metadata.recordedAt;
    const e = recorded as unknown as SurveyEvent;
    switch (e.type) {
      case 'SurveyCreated': {
        const d = e.data;
        db.prepare(
          `INSERT INTO surveys (id, project_id, name, archived, fields, internal_flag_key, targeting_flag_key, created_by, created_at, updated_at, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
        ).run(d.surveyId, d.projectId, d.fields.name, d.fields.archived ? 1 : 0, stableJson(d.fields), d.internalFlagKey, d.targetingFlagKey, d.createdBy, at, at);
        return;
      }
      case 'SurveyUpdated': {
        const current = db.prepare('SELECT fields FROM surveys WHERE id = ?').get(e.data.surveyId) as { fields: string } | undefined;
        if (!current) return;
        const fields = { ...(JSON.parse(current.fields) as Record<string, unknown>), ...e.data.changes };
        db.prepare('UPDATE surveys SET name = ?, archived = ?, fields = ?, updated_at = ?, version = version + 1 WHERE id = ?').run(
          String(fields.name),
          fields.archived ? 1 : 0,
          stableJson(fields),
          at,
          e.data.surveyId,
        );
        return;
      }
      case 'SurveyTargetingFlagChanged':
        db.prepare('UPDATE surveys SET targeting_flag_key = ?, updated_at = ?, version = version + 1 WHERE id = ?').run(e.data.targetingFlagKey, at, e.data.surveyId);
        return;
      case 'SurveyDeleted':
        db.prepare('UPDATE surveys SET deleted = 1, updated_at = ?, version = version + 1 WHERE id = ?').run(at, e.data.surveyId);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};
