import { INTERVAL_MS, batchExportEvents, type BatchExportInterval } from '../../streams';
import { defineProjection } from '../define-projection';
import { stableJson } from '../json';
import type { SqlValue } from '../../src/store/read-model-projection';
import type { SqlSession } from '../../src/store/sql';
import { EXPORT_TABLES } from './schema';

const nullableJson = (value: unknown) => (value === null || value === undefined ? null : stableJson(value));

/** Columns an update may set, by event field. */
const COLUMNS: Record<string, { column: string; encode?: (v: unknown) => unknown }> = {
  name: { column: 'name' },
  interval: { column: 'interval' },
  startAt: { column: 'start_at' },
  endAt: { column: 'end_at' },
  hogqlQuery: { column: 'hogql_query' },
  schema: { column: 'schema', encode: nullableJson },
  lastPausedAt: { column: 'last_paused_at' },
};

async function update(db: SqlSession, id: string, at: string, data: Record<string, unknown>): Promise<void> {
  const sets = ['last_updated_at = ?'];
  const params: SqlValue[] = [at];
  for (const [field, value] of Object.entries(data)) {
    if (value === undefined) continue;
    if (field === 'destination') {
      const d = value as { type: string; config: unknown };
      sets.push('destination_type = ?', 'destination_config = ?');
      params.push(d.type, stableJson(d.config));
      continue;
    }
    const spec = COLUMNS[field];
    if (!spec) continue;
    sets.push(`${spec.column} = ?`);
    params.push((spec.encode ? spec.encode(value) : value) as string | null);
  }
  await db.run(`UPDATE batch_exports SET ${sets.join(', ')} WHERE id = ?`, ...params, id);
}

/**
 * Batch exports read model: the exports (secrets included, for the worker), their pause spans
 * (what the scheduler skips) and backfill requests (what it schedules besides the clock).
 */
export const batchExportsProjection = defineProjection({
  name: 'batch_exports',
  version: 1,
  store: 'readmodels',
  reads: batchExportEvents,
  tables: EXPORT_TABLES,
  async apply(e, db) {
    const at = e.metadata.recordedAt;
    switch (e.type) {
      case 'BatchExportCreated': {
        const d = e.data;
        await db.run(
          `INSERT INTO batch_exports (id, seq, project_id, name, model, destination_type, destination_config, interval,
             paused, created_at, created_by, last_updated_at, last_paused_at, start_at, end_at, hogql_query, schema, deleted, deleted_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL) ON CONFLICT DO NOTHING`,
          d.id, e.position, d.projectId, d.name, d.model, d.destination.type, stableJson(d.destination.config), d.interval,
          d.paused ? 1 : 0, at, d.createdBy, at, d.paused ? at : null, d.startAt, d.endAt, d.hogqlQuery, nullableJson(d.schema),
        );
        // Created paused: nothing is scheduled until it is unpaused.
        if (d.paused) {
          await db.run(
            'INSERT INTO batch_export_pauses (seq, batch_export_id, paused_at, unpaused_at, backfill, automatic) VALUES (?, ?, ?, NULL, 0, 0)',
            e.position, d.id, at,
          );
        }
        return;
      }
      case 'BatchExportUpdated': {
        const { id, projectId: _p, ...changes } = e.data;
        await update(db, id, at, changes);
        return;
      }
      case 'BatchExportPaused':
        await db.run('UPDATE batch_exports SET paused = 1, last_paused_at = ?, last_updated_at = ? WHERE id = ?', at, at, e.data.id);
        await db.run(
          'INSERT INTO batch_export_pauses (seq, batch_export_id, paused_at, unpaused_at, backfill, automatic) VALUES (?, ?, ?, NULL, 0, ?)',
          e.position, e.data.id, at, e.data.automatic ? 1 : 0,
        );
        return;
      case 'BatchExportUnpaused':
        await db.run('UPDATE batch_exports SET paused = 0, last_updated_at = ? WHERE id = ?', at, e.data.id);
        await db.run(
          `UPDATE batch_export_pauses SET unpaused_at = ?, backfill = ?
           WHERE seq = (SELECT max(seq) FROM batch_export_pauses WHERE batch_export_id = ?) AND unpaused_at IS NULL`,
          at, e.data.backfill ? 1 : 0, e.data.id,
        );
        return;
      case 'BatchExportBackfillRequested': {
        const d = e.data;
        const row = await db.get<{ interval: BatchExportInterval }>('SELECT interval FROM batch_exports WHERE id = ?', d.id);
        if (!row) return;
        const step = INTERVAL_MS[row.interval];
        const total = Math.max(0, Math.floor((Date.parse(d.endAt) - Date.parse(d.startAt)) / step));
        await db.run(
          `INSERT INTO batch_export_backfills (id, seq, batch_export_id, project_id, interval, start_at, end_at, total_runs, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
          d.backfillId, e.position, d.id, d.projectId, row.interval, d.startAt, d.endAt, total, at,
        );
        return;
      }
      case 'BatchExportDeleted':
        await db.run('UPDATE batch_exports SET deleted = 1, deleted_at = ?, last_updated_at = ? WHERE id = ?', at, at, e.data.id);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
});
