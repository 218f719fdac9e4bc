import type { FoldContext } from './context';
import { warn } from './context';
import { applyPropertyUpdates, asObject } from './properties';
import type { Properties } from './properties';

/** PostHog's MAX_GROUP_TYPES_PER_TEAM: one events-table column per type. */
export const MAX_GROUP_TYPES = 5;

export type GroupColumns = [string | null, string | null, string | null, string | null, string | null];

/**
 * The column index of a group type, assigned on first sight (lowest free index, as PostHog does) while
 * the project has room. A refused type is warned about once per project, not on every event that
 * carries it: a client sending six types would otherwise write a warning per event.
 */
export async function groupTypeIndexFor(ctx: FoldContext, groupType: string): Promise<number | null> {
  const { db, projectId } = ctx;
  const known = await db.get<{ group_type_index: number }>(
    'SELECT group_type_index FROM group_type_mappings WHERE project_id = ? AND group_type = ?',
    projectId,
    groupType,
  );
  if (known) return known.group_type_index;

  const used = (
    await db.all<{ group_type_index: number }>('SELECT group_type_index FROM group_type_mappings WHERE project_id = ?', projectId)
  ).map((r) => r.group_type_index);
  if (used.length >= MAX_GROUP_TYPES) {
    const first = await db.run(
      'INSERT INTO group_type_refusals (project_id, group_type) VALUES (?, ?) ON CONFLICT DO NOTHING',
      projectId,
      groupType,
    );
    if (first.changes > 0) {
      await warn(ctx, 'group_type_limit_exceeded', { groupType, maxGroupTypes: MAX_GROUP_TYPES, eventUuid: ctx.uuid });
    }
    return null;
  }
  let index = 0;
  while (used.includes(index)) index++;
  await db.run('INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES (?, ?, ?)', projectId, groupType, index);
  return index;
}

/** Group keys arrive as strings or numbers; anything else cannot name a group. */
export function groupKeyOf(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, Number.isFinite is false for anything but a number
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** `$groupidentify` / `$group_identify`: create the group or merge `$group_set` into it like `$set`. */
export async function foldGroupIdentify(ctx: FoldContext): Promise<void> {
  const groupType = ctx.properties.$group_type;
  const groupKey = groupKeyOf(ctx.properties.$group_key);
  if (typeof groupType !== 'string' || groupType === '' || groupKey === null) return;
  const index = await groupTypeIndexFor(ctx, groupType);
  if (index === null) return;

  const { db, projectId } = ctx;
  // A date-joined timestamp in $group_set is just another property: it is kept, not interpreted.
  const groupSet: Properties = asObject(ctx.properties.$group_set) ?? {};
  const row = await db.get<{ group_properties: string; version: number }>(
    'SELECT group_properties, version FROM groups WHERE project_id = ? AND group_type_index = ? AND group_key = ?',
    projectId,
    index,
    groupKey,
  );
  if (!row) {
    await db.run(
      `INSERT INTO groups (project_id, group_type_index, group_key, group_properties, created_at, version)
       VALUES (?, ?, ?, ?, ?, 0)`,
      projectId,
      index,
      groupKey,
      JSON.stringify(groupSet),
      ctx.timestamp,
    );
    return;
  }
  const next = applyPropertyUpdates(JSON.parse(row.group_properties) as Properties, {
    setOnce: null,
    set: groupSet,
    unset: [],
  });
  if (!next.changed) return;
  await db.run(
    'UPDATE groups SET group_properties = ?, version = ? WHERE project_id = ? AND group_type_index = ? AND group_key = ?',
    JSON.stringify(next.properties),
    row.version + 1,
    projectId,
    index,
    groupKey,
  );
}

/**
 * `$groups: {type: key}` on any event fills the events table's group columns. It never creates the
 * group itself, but an unknown type gets an index while there is room, as PostHog's
 * addGroupProperties does. The caller passes the event's `$groups` object (most events have none,
 * and then need no call at all).
 */
export async function groupColumnsOf(ctx: FoldContext, groups: Properties): Promise<GroupColumns> {
  const columns: GroupColumns = [null, null, null, null, null];
  for (const [groupType, value] of Object.entries(groups)) {
    const key = groupKeyOf(value);
    if (groupType === '' || key === null) continue;
    const index = await groupTypeIndexFor(ctx, groupType);
    // Stryker disable next-line ConditionalExpression: equivalent, a refused type's key would land on columns['null'], which no column reads
    if (index !== null) columns[index] = key;
  }
  return columns;
}

export const isGroupIdentify = (event: string) => event === '$groupidentify' || event === '$group_identify';
