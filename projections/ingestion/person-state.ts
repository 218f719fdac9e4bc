import type { FoldContext } from './context';
import { setHashKeyOverride } from './hash-key-overrides';
import { personUuid } from './ids';
import { mergeIntoEventPerson, mergeSourceOf } from './merge';
import type { MergeOutcome } from './merge';
import { insertPerson, loadPerson, savePerson } from './persons';
import { updatesTriggerWrite } from './person-write-filter';
import { applyPropertyUpdates } from './properties';

/**
 * Runs the person side of one event (merge, create, property updates) and returns the person the
 * event belongs to afterwards: the person_id the events table records for it.
 */
export async function foldPerson(ctx: FoldContext): Promise<string> {
  const { db, projectId, distinctId } = ctx;
  const updates = ctx.personUpdates;
  const source = mergeSourceOf(ctx.event, ctx.properties);
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
  if ((updates || markIdentified) && !merge?.propertiesApplied) {
    // A cached person costs no promise: most events of a browser carry lifted properties.
    const person = ctx.cache?.get(personId) ?? (await loadPerson(ctx, personId));
    if (!person) throw new Error(`ingestion: distinct id ${distinctId} points at missing person ${personId}`);
    const identify = markIdentified && !person.isIdentified;
    // Frequently changing properties alone (a new $current_url, say) are not worth a write in PostHog.
    const written = updates !== null && (identify || updatesTriggerWrite(ctx.event, person.properties, updates));
    const next = applyPropertyUpdates(person.properties, written ? updates : null);
    if (next.changed || identify) {
      await savePerson(ctx, {
        ...person,
        properties: next.properties,
        isIdentified: person.isIdentified || identify,
        version: person.version + 1,
      });
    }
  }

  // Experience continuity: the anonymous id keeps bucketing flags for the person it joined.
  if (ctx.event === '$identify' && merge?.linked && source !== null) {
    await setHashKeyOverride(db, projectId, personId, source);
  }
  return personId;
}
