import type { EventContract, RecordedOf } from '../streams';
import type { ReadModelProjection } from '../src/store/read-model-projection';
import type { SqlSession } from '../src/store/sql';

/** The members that see events: a typed projection narrows them to the events it reads. */
type EventMembers = 'handles' | 'apply' | 'applyAll' | 'parts' | 'applyPart' | 'quarantined';

/**
 * A projection as written: the contracts `C` (a union) it reads, and its members over their
 * recorded events, a union that narrows on `event.type`. Each member means what it does on
 * ReadModelProjection.
 */
export interface ProjectionDefinition<C extends EventContract> extends Omit<ReadModelProjection, EventMembers> {
  readonly reads: readonly C[];
  apply(event: RecordedOf<C>, db: SqlSession): Promise<void>;
  applyAll?(events: readonly RecordedOf<C>[], db: SqlSession, stop?: () => Promise<boolean>): Promise<number>;
  parts?(event: RecordedOf<C>): number;
  applyPart?(event: RecordedOf<C>, index: number, db: SqlSession): Promise<void>;
  quarantined?(event: RecordedOf<C>, part: number | null, error: string, db: SqlSession): Promise<void>;
}

/**
 * A projection typed by the contracts it reads; its `handles` can name no other event type. It is a
 * ReadModelProjection as it stands, which the runner holds without knowing `C`: that is sound
 * because the runner hands these members only the events whose type is in `handles`, and the log
 * validated each event's data against its type's contract when it was appended.
 */
export interface TypedProjection<C extends EventContract> extends ProjectionDefinition<C> {
  readonly handles: readonly C['type'][];
}

/** A projection whose `handles` are the types of the contracts it reads, so the two cannot disagree. */
export function defineProjection<C extends EventContract>(definition: ProjectionDefinition<C>): TypedProjection<C> {
  return { ...definition, handles: definition.reads.map((c) => c.type) };
}
