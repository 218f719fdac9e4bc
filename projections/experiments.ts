import type { ExperimentEvent, ExperimentUpdatedData, RecordedEvent } from '../streams';
import { stableJson } from './json';
import type { Projection, SqlStore } from './projection';

/** JSON columns: null stays SQL NULL, anything else is stored with sorted keys (stable digests). */
const jsonOrNull = (value: unknown): string | null => (value === undefined || value === null ? null : stableJson(value));

/** Column of each updatable field of ExperimentUpdated, and how its value is stored. */
const UPDATABLE: Record<string, { column: string; encode: (v: unknown) => string | number | null }> = {
  name: { column: 'name', encode: (v) => v as string },
  description: { column: 'description', encode: (v) => v as string },
  startDate: { column: 'start_date', encode: (v) => (v as string | null) ?? null },
  endDate: { column: 'end_date', encode: (v) => (v as string | null) ?? null },
  parameters: { column: 'parameters', encode: jsonOrNull },
  secondaryMetrics: { column: 'secondary_metrics', encode: jsonOrNull },
  filters: { column: 'filters', encode: jsonOrNull },
  archived: { column: 'archived', encode: (v) => (v ? 1 : 0) },
};

function applyUpdate(db: SqlStore, d: ExperimentUpdatedData, at: string) {
  const fields = Object.keys(UPDATABLE).filter((k) => k in d && d[k as keyof ExperimentUpdatedData] !== undefined);
  // The SQL text depends only on which fields changed, so the statement cache stays small.
  const set = fields.map((k) => `${UPDATABLE[k].column} = ?`);
  const values = fields.map((k) => UPDATABLE[k].encode(d[k as keyof ExperimentUpdatedData]));
  db.prepare(`UPDATE experiments SET ${[...set, 'updated_at = ?', 'version = version + 1'].join(', ')} WHERE id = ?`).run(
    ...values,
    at,
    d.experimentId,
  );
}

/**
 * Experiments read model: one row per experiment stream, abandoned and deleted ones included (they
 * keep their ids). Whether an experiment is visible also depends on its flag, which the queries join.
 */
export const experimentsProjection: Projection = {
  name: 'experiments',
  version: 1,
  store: 'readmodels',
  handles: ['ExperimentCreated', 'ExperimentUpdated', 'ExperimentExposureCohortSet', 'ExperimentDeleted', 'ExperimentCreationAbandoned'],
  tables: [{ name: 'experiments', orderBy: 'id' }],
  setup(db) {
    db.exec(`CREATE TABLE IF NOT EXISTS experiments (
      id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
      start_date TEXT, end_date TEXT, feature_flag_key TEXT NOT NULL, parameters TEXT, secondary_metrics TEXT,
      filters TEXT, archived INTEGER NOT NULL, exposure_cohort INTEGER, created_by INTEGER,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
      abandoned INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS experiments_by_project ON experiments (project_id, id);`);
  },
  apply(recorded: RecordedEvent, db: SqlStore) {
    const at = recorded.metadata.recordedAt;
    const e = recorded as unknown as ExperimentEvent;
    switch (e.type) {
      case 'ExperimentCreated': {
        const d = e.data;
        db.prepare(
          `INSERT INTO experiments (id, project_id, name, description, start_date, end_date, feature_flag_key, parameters,
             secondary_metrics, filters, archived, exposure_cohort, created_by, created_at, updated_at, version)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 1)`,
        ).run(
          d.experimentId,
          d.projectId,
          d.name,
          d.description,
          d.startDate,
          d.endDate,
          d.featureFlagKey,
          jsonOrNull(d.parameters),
          jsonOrNull(d.secondaryMetrics),
          jsonOrNull(d.filters),
          d.archived ? 1 : 0,
          d.createdBy,
          at,
          at,
        );
        return;
      }
      case 'ExperimentUpdated':
        applyUpdate(db, e.data, at);
        return;
      case 'ExperimentExposureCohortSet':
        db.prepare('UPDATE experiments SET exposure_cohort = ?, updated_at = ?, version = version + 1 WHERE id = ?').run(
          e.data.cohortId,
          at,
          e.data.experimentId,
        );
        return;
      case 'ExperimentDeleted':
        db.prepare('UPDATE experiments SET deleted = 1, updated_at = ?, version = version + 1 WHERE id = ?').run(at, e.data.experimentId);
        return;
      case 'ExperimentCreationAbandoned':
        db.prepare('UPDATE experiments SET abandoned = 1, version = version + 1 WHERE id = ?').run(e.data.experimentId);
        return;
      default: {
        const never: never = e;
        return never;
      }
    }
  },
};
