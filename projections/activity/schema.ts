import type { TableSchema } from '../../src/store/sql';

/**
 * `activity_log`: one row per change a management event made, keyed by the event's log position
 * (newest first is position order, and a replay numbers rows alike). `detail` is PostHog's detail
 * JSON with secrets already masked; `actor` is the event's metadata actor as recorded.
 * `activity_items`: what the fold knows of each item as the API shows it (secrets replaced by a
 * fingerprint), the "before" of the next change; flags get their id here as the flags read model
 * numbers them (one more than the last flag created, in log order).
 */
export const ACTIVITY_TABLES: readonly TableSchema[] = [
  {
    name: 'activity_log',
    columns: {
      position: 'integer',
      id: 'text',
      project_id: 'integer',
      scope: 'text',
      item_id: 'text',
      activity: 'text',
      actor: 'text',
      user_id: 'integer?',
      detail: 'text',
      created_at: 'text',
    },
    primaryKey: ['position'],
    indexes: {
      activity_log_by_project: ['project_id', 'position'],
      activity_log_by_item: ['project_id', 'scope', 'item_id', 'position'],
    },
    orderBy: 'position',
  },
  {
    name: 'activity_items',
    columns: { scope: 'text', item_key: 'text', project_id: 'integer', item_id: 'text', state: 'text' },
    primaryKey: ['scope', 'item_key'],
    indexes: { activity_items_by_id: ['project_id', 'scope', 'item_id'] },
    orderBy: 'scope, item_key',
  },
];
