import type { SqlSession } from '../../src/store/sql';

/**
 * Experience continuity: the anonymous id a person had before identifying keeps bucketing their flags.
 * The first override a person gets wins; later identifies never move an established bucket.
 */
export async function setHashKeyOverride(db: SqlSession, projectId: number, personId: string, hashKey: string): Promise<void> {
  await db.run(
    'INSERT INTO person_hash_key_overrides (project_id, person_id, hash_key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    projectId,
    personId,
    hashKey,
  );
}

/**
 * On a merge the survivor keeps its own override if it has one (PostHog moves overrides with
 * ON CONFLICT DO NOTHING); otherwise it inherits the merged-away person's.
 */
export async function moveHashKeyOverride(db: SqlSession, projectId: number, fromId: string, toId: string): Promise<void> {
  // Most merged persons have none: one statement finds that out and, otherwise, takes it away.
  const moved = await db.all<{ hash_key: string }>(
    'DELETE FROM person_hash_key_overrides WHERE project_id = ? AND person_id = ? RETURNING hash_key',
    projectId,
    fromId,
  );
  if (moved.length) await setHashKeyOverride(db, projectId, toId, moved[0].hash_key);
}
