import type { FoldContext } from './context';
import { setHashKeyOverride } from './hash-key-overrides';
import { personUuid } from './ids';
import { mergeIntoEventPerson, mergeSourceOf } from './merge';
import type { MergeOutcome } from './merge';
import { insertPerson, loadPerson, savePerson, type Person } from './persons';
import { updatesTriggerWrite } from './person-write-filter';
import { applyPropertyUpdates } from './properties';

/**
 * Runs the person side of one event (merge, create, property updates) and returns the person the
 * event belongs to afterwards: the person_id the events table records for it. The most common event
 * (no merge, a person already known and cached, nothing worth writing) settles without a promise.
 */
export function foldPerson(ctx: FoldContext): string | Promise<string> {
  const source = mergeSourceOf(ctx.event, ctx.properties);
  const personId = ctx.personIdBefore;
  // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, the known person's shortcut; foldPersonFully writes the same person
  if (source === null && personId !== undefined) {
    const updates = ctx.personUpdates;
    // The common case (no person operations, no merge) never reads the person row.
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, the shortcut of an event without updates; the paths after it write nothing for it either and say so
    if (!updates) {
      ctx.personUnchanged = true;
      return personId;
    }
    const person = ctx.cache?.get(personId);
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, the cached person's shortcut; foldPersonFully reads it and writes the same
    if (person) {
      const next = updatedPerson(ctx, person, false);
      if (next) return savePerson(ctx, next).then(() => personId);
      ctx.personUnchanged = true;
      return personId;
    }
  }
  return foldPersonFully(ctx, source);
}

async function foldPersonFully(ctx: FoldContext, source: string | null): Promise<string> {
  const { db, projectId, distinctId } = ctx;
  const updates = ctx.personUpdates;
  const merge: MergeOutcome | null = source === null ? null : await mergeIntoEventPerson(ctx, source);

  // A merge that returned no person changed nothing, so the id read before it still holds.
  const personId = merge?.personId ?? ctx.personIdBefore;
  if (personId === undefined) {
    // A new person starts from the event's $set_once/$set (PostHog ignores $unset on creation).
    const { properties } = applyPropertyUpdates({}, updates && { ...updates, unset: [] });
    const uuid = personUuid(projectId, distinctId);
    await insertPerson(
      ctx,
      { uuid, projectId, properties, createdAt: ctx.timestamp, isIdentified: false, version: 0 },
      [distinctId],
      ctx.ordinal,
    );
    return uuid;
  }

  const markIdentified = merge?.markIdentified ?? false;
  // The common case (no person operations, no merge) never reads the person row.
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, the person would be read only to find nothing to write (updatedPerson answers null)
  if ((updates || markIdentified) && !merge?.propertiesApplied) {
    const person = await loadPerson(ctx, personId);
    if (!person) throw new Error(`ingestion: distinct id ${distinctId} points at missing person ${personId}`);
    const next = updatedPerson(ctx, person, markIdentified);
    if (next) await savePerson(ctx, next);
    // What the cached shortcut decides for a known person without a merge, decided alike here (a
    // known person without updates or a merge never reaches this function).
    else if (merge === null) ctx.personUnchanged = true;
  }

  // Experience continuity: the anonymous id keeps bucketing flags for the person it joined.
  // Stryker disable next-line ConditionalExpression: equivalent, a merge (hence linked) happens only with a source
  if (ctx.event === '$identify' && merge?.linked && source !== null) {
    await setHashKeyOverride(db, projectId, personId, source);
  }
  return personId;
}

/** The person after the event's updates (and identification), or null when nothing is to be written. */
function updatedPerson(ctx: FoldContext, person: Person, markIdentified: boolean): Person | null {
  const updates = ctx.personUpdates;
  const identify = markIdentified && !person.isIdentified;
  // Frequently changing properties alone (a new $current_url, say) are not worth a write in PostHog.
  // Stryker disable next-line ConditionalExpression: equivalent, without updates nothing is applied whether or not it is 'written'
  const written = updates !== null && (identify || updatesTriggerWrite(ctx.event, person.properties, updates));
  const next = applyPropertyUpdates(person.properties, written ? updates : null);
  if (!next.changed && !identify) return null;
  return { ...person, properties: next.properties, isIdentified: person.isIdentified || identify, version: person.version + 1 };
}
