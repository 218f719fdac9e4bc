import { actionEvents } from '../streams';
import { defineProjection } from './define-projection';
import { stableJson } from './json';
import { changedFields } from './changed-fields';

/** PostHog's actions, one row each (soft-deleted ones kept, marked). */
export const actionsProjection = defineProjection({
  name: 'actions',
  version: 1,
  store: 'readmodels',
  reads: actionEvents,
  tables: [
    {
      name: 'actions',
      columns: {
        id: 'integer',
        project_id: 'integer',
        name: 'text?',
        fields: 'text',
        created_by: 'integer?',
        created_at: 'text',
        updated_at: 'text',
        deleted: 'integer',
        version: 'integer',
      },
      primaryKey: ['id'],
      indexes: { actions_by_project: ['project_id', 'deleted'] },
      orderBy: 'id',
    },
  ],
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    switch (e.type) {
      case 'ActionCreated': {
        const d = e.data;
        await db.run(
          `INSERT INTO actions (id, project_id, name, fields, created_by, created_at, updated_at, deleted, version) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 1)`,
          d.actionId,
          d.projectId,
          d.fields.name,
          stableJson(d.fields),
          d.createdBy,
          at,
          at,
        );
        return;
      }
      case 'ActionUpdated': {
        const fields = await changedFields(db, 'actions', e.data.actionId, e.data.changes);
        if (!fields) return;
        const name = typeof fields.name === 'string' ? fields.name : null;
        await db.run('UPDATE actions SET name = ?, fields = ?, updated_at = ?, version = version + 1 WHERE id = ?', name, stableJson(fields), at, e.data.actionId);
        return;
      }
      case 'ActionDeleted':
      case 'ActionRestored':
        await db.run(
          'UPDATE actions SET deleted = ?, updated_at = ?, version = version + 1 WHERE id = ?',
          e.type === 'ActionDeleted' ? 1 : 0,
          at,
          e.data.actionId,
        );
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
});
