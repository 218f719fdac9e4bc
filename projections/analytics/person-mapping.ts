import type { PersonMappingRow } from '../../src/store/analytics';
import type { SqlSession } from '../../src/store/sql';

/** Rows per statement: 4 parameters each, well under both engines' bound-parameter limits. */
const CHUNK = 500;

/**
 * The embedded store's person mapping: upserts into the read models' `person_distinct_ids`, a row
 * replaced only by a higher version (kept in `seq_position`, see PersonMappingSink). Each batch is
 * first reduced to its newest row per distinct id: PostgreSQL refuses an upsert that touches one
 * row twice in a statement.
 */
export async function mapPersons(db: SqlSession, rows: readonly PersonMappingRow[]): Promise<void> {
  const newest = new Map<string, PersonMappingRow>();
  for (const row of rows) {
    const key = JSON.stringify([row.projectId, row.distinctId]);
    const seen = newest.get(key);
    if (seen === undefined || row.version > seen.version) newest.set(key, row);
  }
  const all = [...newest.values()];
  for (let i = 0; i < all.length; i += CHUNK) {
    const chunk = all.slice(i, i + CHUNK);
    await db.run(
      `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id, seq_position, seq_index)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, 0)').join(', ')}
       ON CONFLICT (project_id, distinct_id) DO UPDATE SET person_id = excluded.person_id, seq_position = excluded.seq_position, seq_index = 0
       WHERE excluded.seq_position > person_distinct_ids.seq_position`,
      ...chunk.flatMap((r) => [r.projectId, r.distinctId, r.personId, r.version]),
    );
  }
}
