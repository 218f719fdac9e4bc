import { EventCaptured, EventsCaptured, surveyEvents, type CapturedEventData, type RecordedEvent } from '../streams';
import { defineProjection } from './define-projection';
import { projectIdOf } from './ingestion/fold-captured';
import { stableJson } from './json';
import type { SqlSession } from '../src/store/sql';
import { changedFields } from './changed-fields';

/**
 * One row per `survey sent` submission: partial submits of one response share `$survey_submission_id`
 * (PostHog counts them once), older SDKs send none and each event counts. ON CONFLICT DO NOTHING
 * makes a replayed duplicate count once too.
 */
async function recordResponse(recorded: RecordedEvent, data: CapturedEventData, db: SqlSession) {
  if (data.event !== 'survey sent') return;
  const props = data.properties as Record<string, unknown>;
  const surveyId = props.$survey_id;
  if (typeof surveyId !== 'string' || surveyId === '') return;
  const projectId = projectIdOf(recorded);
  if (projectId === null) return;
  const submission = typeof props.$survey_submission_id === 'string' && props.$survey_submission_id !== '' ? `s:${props.$survey_submission_id}` : `e:${data.uuid}`;
  await db.run('INSERT INTO survey_responses (project_id, survey_id, submission) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', projectId, surveyId, submission);
}

/** Surveys (their fields as one JSON document) and the responses counted per survey. */
export const surveysProjection = defineProjection({
  name: 'surveys',
  version: 1,
  store: 'readmodels',
  reads: [...surveyEvents, EventCaptured, EventsCaptured],
  tables: [
    {
      name: 'surveys',
      columns: {
        id: 'text',
        project_id: 'integer',
        name: 'text',
        archived: 'integer',
        fields: 'text',
        internal_flag_key: 'text',
        targeting_flag_key: 'text?',
        created_by: 'integer?',
        created_at: 'text',
        updated_at: 'text',
        deleted: 'integer',
        version: 'integer',
      },
      primaryKey: ['id'],
      indexes: { surveys_by_project: ['project_id', 'created_at'] },
      orderBy: 'id',
    },
    {
      name: 'survey_responses',
      columns: { project_id: 'integer', survey_id: 'text', submission: 'text' },
      primaryKey: ['project_id', 'survey_id', 'submission'],
      clustered: true,
      orderBy: 'project_id, survey_id, submission',
    },
  ],
  async apply(recorded, db) {
    if (recorded.type === 'EventsCaptured') {
      // Checked here first: the other captured events of a batch then cost no await.
      for (const data of recorded.data.events) if (data.event === 'survey sent') await recordResponse(recorded, data, db);
      return;
    }
    if (recorded.type === 'EventCaptured') {
      await recordResponse(recorded, recorded.data, db);
      return;
    }
    const at = recorded.metadata.recordedAt;
    switch (recorded.type) {
      case 'SurveyCreated': {
        const d = recorded.data;
        await db.run(
          `INSERT INTO surveys (id, project_id, name, archived, fields, internal_flag_key, targeting_flag_key, created_by, created_at, updated_at, deleted, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1)`,
          d.surveyId,
          d.projectId,
          d.fields.name,
          d.fields.archived ? 1 : 0,
          stableJson(d.fields),
          d.internalFlagKey,
          d.targetingFlagKey,
          d.createdBy,
          at,
          at,
        );
        return;
      }
      case 'SurveyUpdated': {
        const fields = await changedFields(db, 'surveys', recorded.data.surveyId, recorded.data.changes);
        if (!fields) return;
        await db.run(
          'UPDATE surveys SET name = ?, archived = ?, fields = ?, updated_at = ?, version = version + 1 WHERE id = ?',
          String(fields.name),
          fields.archived ? 1 : 0,
          stableJson(fields),
          at,
          recorded.data.surveyId,
        );
        return;
      }
      case 'SurveyTargetingFlagChanged':
        await db.run('UPDATE surveys SET targeting_flag_key = ?, updated_at = ?, version = version + 1 WHERE id = ?', recorded.data.targetingFlagKey, at, recorded.data.surveyId);
        return;
      case 'SurveyDeleted':
        await db.run('UPDATE surveys SET deleted = 1, updated_at = ?, version = version + 1 WHERE id = ?', at, recorded.data.surveyId);
        return;
      default: {
        const never: never = recorded;
        return never;
      }
    }
  },
});
