import { actionEvents } from '../streams';
import { defineProjection } from './define-projection';
import { fieldsResourceTable, insertFieldsResource, markFieldsResourceDeleted, updateFieldsResource } from './fields-resource';

const TABLE = 'actions';

/** PostHog's actions, one row each (soft-deleted ones kept, marked). */
export const actionsProjection = defineProjection({
  name: 'actions',
  version: 1,
  store: 'readmodels',
  reads: actionEvents,
  tables: [fieldsResourceTable(TABLE, 'text?')],
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    switch (e.type) {
      case 'ActionCreated': {
        const d = e.data;
        await insertFieldsResource(db, TABLE, { id: d.actionId, projectId: d.projectId, name: d.fields.name, fields: d.fields, createdBy: d.createdBy }, at);
        return;
      }
      case 'ActionUpdated':
        await updateFieldsResource(db, TABLE, e.data.actionId, e.data.changes, at, (fields) => (typeof fields.name === 'string' ? fields.name : null));
        return;
      case 'ActionDeleted':
      case 'ActionRestored':
        await markFieldsResourceDeleted(db, TABLE, e.data.actionId, e.type === 'ActionDeleted', at);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
});
