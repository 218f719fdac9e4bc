import type { ReadModelProjection } from '../../store/read-model-projection';
import type { ReadModelTransaction } from '../../store/read-models';
import { readCheckpoint, WRITE_CHECKPOINT } from '../checkpoints';
import { forgetQuarantines } from '../quarantine';

/**
 * In one transaction, the next version built side by side (`next`, see next-version.ts) takes the
 * place of the version that served: its tables take the served tables' names (those are dropped),
 * its checkpoint, lanes and quarantined events become the projection's. Answers the checkpoint and
 * the replaced tables to drop once this has committed.
 */
export async function takeOver(tx: ReadModelTransaction, projection: ReadModelProjection, next: ReadModelProjection): Promise<{ position: number; replaced: readonly string[] }> {
  const built = await readCheckpoint(tx, next.name);
  if (!built) throw new Error(`${next.name} has no checkpoint: nothing was built to take over`);
  const replaced = await tx.replaceTables(projection.tables.map((to, i) => ({ from: next.tables[i], to })));
  await forgetQuarantines(tx, projection.name);
  await tx.run('UPDATE projection_failures SET projection = ? WHERE projection = ?', projection.name, next.name);
  await tx.run('DELETE FROM projection_checkpoints WHERE name = ?', next.name);
  await tx.run(WRITE_CHECKPOINT, projection.name, built.position, projection.version);
  if (projection.lane) {
    await tx.run('DELETE FROM projection_lanes WHERE name = ?', projection.name);
    await tx.run('UPDATE projection_lanes SET name = ? WHERE name = ?', projection.name, next.name);
  }
  return { position: built.position, replaced };
}
