import type { SqlStore } from '../projection';

/**
 * Experience continuity: the anonymous id a person had before identifying keeps bucketing their flags.
 * The first override a person gets wins; later identifies never move an established bucket.
 */
export function setHashKeyOverride(db: SqlStore, projectId: number, personId: string, hashKey: string): void {
  db.prepare('INSERT OR IGNORE INTO person_hash_key_overrides (project_id, person_id, hash_key) VALUES (?, ?, ?)').run(
    projectId,
    personId,
    hashKey,
  );
}

/**
 * On a merge the survivor keeps its own override if it has one (PostHog moves overrides with
 * ON CONFLICT DO NOTHING); otherwise it inherits the merged-away person's.
 */
export function moveHashKeyOverride(db: SqlStore, projectId: number, fromId: string, toId: string): void {
  db.prepare(
    'UPDATE OR IGNORE person_hash_key_overrides SET person_id = ? WHERE project_id = ? AND person_id = ?',
  ).run(toId, projectId, fromId);
  db.prepare('DELETE FROM person_hash_key_overrides WHERE project_id = ? AND person_id = ?').run(projectId, fromId);
}
