import type { Actor, EventMetadata } from '../../streams';
import type { SqlSession } from '../../src/store/sql';
import { defineProjection } from '../define-projection';
import { stableJson } from '../json';
import { changesBetween } from './changes';
import { ACTIVITY_TABLES } from './schema';
import { activityEvents, transitionOf, type ActivityScope, type ItemState } from './transitions';

export { ACTIVITY_SCOPES, type ActivityScope } from './transitions';
export { activityQueries, type ActivityFilters, type ActivityQueries, type ActivityRow } from './queries';

interface ItemRow {
  item_id: string;
  state: string;
}

/** The name PostHog's detail shows for an item: a flag's key, else its name. */
const nameOf = (state: ItemState): string | null => {
  const name = state.key ?? state.name;
  return typeof name === 'string' ? name : null;
};

const userOf = (actor: Actor): number | null => (actor.type === 'user' ? actor.id : null);

async function record(
  db: SqlSession,
  meta: { position: number; metadata: EventMetadata },
  item: { scope: ActivityScope; projectId: number; itemId: string; name: string | null },
  activity: string,
  changes: unknown[],
) {
  const detail = { id: item.itemId, changes, merge: null, trigger: null, name: item.name, short_id: null, type: null };
  await db.run(
    `INSERT INTO activity_log (position, id, project_id, scope, item_id, activity, actor, user_id, detail, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    meta.position,
    meta.metadata.eventId,
    item.projectId,
    item.scope,
    item.itemId,
    activity,
    stableJson(meta.metadata.actor),
    userOf(meta.metadata.actor),
    stableJson(detail),
    meta.metadata.recordedAt,
  );
}

/**
 * Activity history (issue 23 item 2): one entry per change to a flag, experiment, saved experiment metric, action, cohort, survey,
 * early access feature or batch export, with who made it (the event's actor), when (its
 * recordedAt), and each changed field's before and after. Derived from the log alone, so a replay
 * writes the same rows; credentials never reach its tables (see maskedDestination).
 * An `updated` that changes nothing writes no entry, as in PostHog.
 */
export const activityProjection = defineProjection({
  name: 'activity',
  version: 1,
  store: 'readmodels',
  reads: activityEvents,
  tables: ACTIVITY_TABLES,
  async apply(e, db) {
    const t = transitionOf(e);
    const row = await db.get<ItemRow>('SELECT item_id, state FROM activity_items WHERE scope = ? AND item_key = ?', t.scope, t.itemKey);
    const before = row ? (JSON.parse(row.state) as ItemState) : null;
    switch (t.kind) {
      case 'created': {
        if (row) return;
        // Flags are numbered as the flags read model numbers them: one more than the flags before.
        const itemId =
          t.itemId ?? String((await db.get<{ n: number }>("SELECT count(*) AS n FROM activity_items WHERE scope = 'FeatureFlag'"))!.n + 1);
        await db.run(
          'INSERT INTO activity_items (scope, item_key, project_id, item_id, state) VALUES (?, ?, ?, ?, ?)',
          t.scope,
          t.itemKey,
          t.projectId,
          itemId,
          stableJson(t.state),
        );
        await record(db, e, { scope: t.scope, projectId: t.projectId, itemId, name: nameOf(t.state) }, 'created', changesBetween(t.scope, null, t.state));
        return;
      }
      case 'updated': {
        if (!row || !before) return;
        const item = { scope: t.scope, projectId: t.projectId, itemId: row.item_id, name: nameOf(before) };
        // A named action (a backfill request) is reported against nothing and not kept as state.
        if (t.activity) {
          await record(db, e, item, t.activity, changesBetween(t.scope, {}, t.patch));
          return;
        }
        const after = { ...before, ...t.patch };
        const changes = changesBetween(t.scope, before, after);
        if (changes.length === 0) return;
        await db.run('UPDATE activity_items SET state = ? WHERE scope = ? AND item_key = ?', stableJson(after), t.scope, t.itemKey);
        await record(db, e, { ...item, name: nameOf(after) }, 'updated', changes);
        return;
      }
      case 'deleted': {
        if (!row || !before || before._deleted === true) return;
        await db.run('UPDATE activity_items SET state = ? WHERE scope = ? AND item_key = ?', stableJson({ ...before, _deleted: true }), t.scope, t.itemKey);
        await record(db, e, { scope: t.scope, projectId: t.projectId, itemId: row.item_id, name: nameOf(before) }, 'deleted', changesBetween(t.scope, before, null));
        return;
      }
      case 'abandoned': {
        if (!row) return;
        await db.run('DELETE FROM activity_log WHERE project_id = ? AND scope = ? AND item_id = ?', t.projectId, t.scope, row.item_id);
        await db.run('DELETE FROM activity_items WHERE scope = ? AND item_key = ?', t.scope, t.itemKey);
        return;
      }
      default: {
        const never: never = t;
        return never;
      }
    }
  },
});
