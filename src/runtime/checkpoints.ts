import type { SqlSession, TableSchema } from '../store/sql';

/** Where each projection stands in the log, and the version of the fold that got it there. */
export const CHECKPOINTS_SCHEMA: TableSchema = {
  name: 'projection_checkpoints',
  columns: { name: 'text', position: 'integer', version: 'integer' },
  primaryKey: ['name'],
  orderBy: 'name',
};
/** How far each lane of a laned projection has applied past its checkpoint (see lane-backlog.ts). */
export const LANES_SCHEMA: TableSchema = {
  name: 'projection_lanes',
  columns: { name: 'text', lane: 'text', position: 'integer' },
  primaryKey: ['name', 'lane'],
  orderBy: 'name, lane',
};
export const READ_LANES = 'SELECT lane, position FROM projection_lanes WHERE name = ?';
export const READ_LANE = 'SELECT position FROM projection_lanes WHERE name = ? AND lane = ?';
export const WRITE_LANE = `INSERT INTO projection_lanes (name, lane, position) VALUES (?, ?, ?)
  ON CONFLICT (name, lane) DO UPDATE SET position = excluded.position`;
export const FORGET_LANES_BEHIND = 'DELETE FROM projection_lanes WHERE name = ? AND position <= ?';
export const READ_CHECKPOINT = 'SELECT position, version FROM projection_checkpoints WHERE name = ?';
export const WRITE_CHECKPOINT = `INSERT INTO projection_checkpoints (name, position, version) VALUES (?, ?, ?)
  ON CONFLICT (name) DO UPDATE SET position = excluded.position, version = excluded.version`;

export async function readCheckpoint(db: SqlSession, name: string): Promise<{ position: number; version: number } | undefined> {
  return db.get<{ position: number; version: number }>(READ_CHECKPOINT, name);
}

/** The lock a projection's transactions take, so two runners on one store never fold one batch twice. */
export const projectionLock = (projection: { readonly name: string }) => `projection:${projection.name}`;
