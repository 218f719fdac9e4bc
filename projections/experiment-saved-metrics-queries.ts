import type { SavedMetricFields } from '../streams';
import type { SqlSession } from '../src/store/sql';

export interface SavedMetricRow {
  id: number;
  project_id: number;
  fields: SavedMetricFields;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  version: number;
}

/** One experiment's link to a saved metric, with the metric's current name and query (PostHog reads them through the link). */
export interface SavedMetricLinkRow {
  id: number;
  experiment_id: number;
  saved_metric_id: number;
  metadata: Record<string, unknown>;
  created_at: string;
  name: string;
  query: Record<string, unknown>;
}

type Raw = Omit<SavedMetricRow, 'fields'> & { fields: string };
type RawLink = Omit<SavedMetricLinkRow, 'metadata' | 'name' | 'query'> & { metadata: string; fields: string };

const COLUMNS = 'id, project_id, fields, created_by, created_at, updated_at, version';
const row = (r: Raw): SavedMetricRow => ({ ...r, fields: JSON.parse(r.fields) as SavedMetricFields });
const link = ({ fields, metadata, ...r }: RawLink): SavedMetricLinkRow => {
  const f = JSON.parse(fields) as SavedMetricFields;
  return { ...r, metadata: JSON.parse(metadata) as Record<string, unknown>, name: f.name, query: f.query };
};

export function savedMetricQueries(db: SqlSession) {
  return {
    /** The first id to try for a new saved metric (ids are global, as PostHog's). */
    nextId: async () => (await db.get<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM experiment_saved_metrics'))!.id,

    byId: async (projectId: number, id: number): Promise<SavedMetricRow | undefined> => {
      const r = await db.get<Raw>(`SELECT ${COLUMNS} FROM experiment_saved_metrics WHERE project_id = ? AND id = ? AND deleted = 0`, projectId, id);
      return r ? row(r) : undefined;
    },

    /** Another live metric of the project with this name, ignoring case (PostHog keeps names unique so). */
    nameTaken: async (projectId: number, name: string, except: number | null): Promise<boolean> =>
      (await db.get<{ id: number }>(
        'SELECT id FROM experiment_saved_metrics WHERE project_id = ? AND deleted = 0 AND lower(name) = lower(?) AND id <> ?',
        projectId,
        name,
        except ?? 0,
      )) !== undefined,

    /** PostHog's order: by name, ignoring case (ties by id). */
    list: async (projectId: number, limit: number, offset: number) => {
      const where = 'FROM experiment_saved_metrics WHERE project_id = ? AND deleted = 0';
      const count = (await db.get<{ n: number }>(`SELECT count(*) AS n ${where}`, projectId))!.n;
      const rows = await db.all<Raw>(`SELECT ${COLUMNS} ${where} ORDER BY lower(name), id LIMIT ? OFFSET ?`, projectId, limit, offset);
      return { count, rows: rows.map(row) };
    },

    /** An experiment's live links, in the order they were given. */
    linksOf: async (projectId: number, experimentId: number): Promise<SavedMetricLinkRow[]> =>
      (
        await db.all<RawLink>(
          `SELECT l.id, l.experiment_id, l.saved_metric_id, l.metadata, l.created_at, m.fields
             FROM experiment_saved_metric_links l JOIN experiment_saved_metrics m ON m.id = l.saved_metric_id
            WHERE l.project_id = ? AND l.experiment_id = ? AND l.gone = 0 ORDER BY l.created_position, l.link_index`,
          projectId,
          experimentId,
        )
      ).map(link),
  };
}

export type SavedMetricQueries = ReturnType<typeof savedMetricQueries>;
