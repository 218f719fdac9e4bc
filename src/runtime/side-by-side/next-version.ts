import type { ReadModelProjection } from '../../store/read-model-projection';
import type { SqlSession } from '../../store/sql';
import { RenamedSessions, renamedSchema } from './renamed-session';

/** What names a projection's next version is built under, beside the version that serves. */
export const nextVersionSuffix = (projection: ReadModelProjection) => `__v${projection.version}`;

/**
 * The projection as it builds its next version side by side: the same fold, under its own name
 * (checkpoint, lock, quarantine) and into tables of its own (`persons__v8` beside `persons`), so the
 * version that serves is untouched until the new one takes its place (see SideBySideRebuild).
 */
export function nextVersionOf(projection: ReadModelProjection): ReadModelProjection {
  const suffix = nextVersionSuffix(projection);
  const tables = projection.tables.map((table) => renamedSchema(table, suffix));
  const renames = new Map<string, string>();
  projection.tables.forEach((table, i) => {
    renames.set(table.name, tables[i].name);
    for (const index of Object.keys(table.indexes ?? {})) renames.set(index, `${index}${suffix}`);
  });
  const sessions = new RenamedSessions(renames, new Map(projection.tables.map((table, i) => [table.name, tables[i]])));
  const renamed = (db: SqlSession) => sessions.of(db);
  const { applyAll, applyPart, quarantined } = projection;
  return {
    name: `${projection.name}${suffix}`,
    version: projection.version,
    store: projection.store,
    handles: projection.handles,
    tables,
    lane: projection.lane?.bind(projection),
    parts: projection.parts?.bind(projection),
    apply: (event, db) => projection.apply(event, renamed(db)),
    applyAll: applyAll && ((events, db, stop) => applyAll.call(projection, events, renamed(db), stop)),
    applyPart: applyPart && ((event, index, db) => applyPart.call(projection, event, index, renamed(db))),
    rolledBack: projection.rolledBack?.bind(projection),
    quarantined: quarantined && ((event, part, error, db) => quarantined.call(projection, event, part, error, renamed(db))),
  };
}
