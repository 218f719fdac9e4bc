// Compiled by typed-projection.test.ts (and by `tsc -p .`). The line after each @ts-expect-error must
// fail to compile with the error it names: if the types of projections or deciders loosen, the
// directive goes unused, which is an error in turn.
import { CohortCreated, EventCaptured, EventsCaptured, FeatureFlagCreated, featureFlagEvents, type FeatureFlagEvent } from '../../../streams';
import { defineProjection, type TypedProjection } from '../../../projections/define-projection';
import type { ReadModelProjection } from '../../../src/store/read-model-projection';
import type { Decider } from '../../../src/runtime/decider';

const base = { name: 'fixture', version: 1, store: 'readmodels', tables: [] } as const;

export const handlesUnread: TypedProjection<typeof FeatureFlagCreated> = {
  ...base,
  reads: [FeatureFlagCreated],
  // @ts-expect-error TS2322: FeatureFlagDeleted exists, but this projection does not read it
  handles: ['FeatureFlagCreated', 'FeatureFlagDeleted'],
  async apply() {},
};

export const handlesMisspelt: TypedProjection<typeof FeatureFlagCreated> = {
  ...base,
  reads: [FeatureFlagCreated],
  // @ts-expect-error TS2322: no event type is spelt so
  handles: ['FeatureFlagCreatd'],
  async apply() {},
};

export const handlesGiven = defineProjection({
  ...base,
  reads: [FeatureFlagCreated],
  // @ts-expect-error TS2353: handles come from `reads`, never written beside them
  handles: ['FeatureFlagCreated'],
  async apply() {},
});

export const narrowing = defineProjection({
  ...base,
  reads: featureFlagEvents,
  async apply(event) {
    switch (event.type) {
      case 'FeatureFlagCreated':
        event.data.name satisfies string;
        // @ts-expect-error TS2339: the contract's data has no such field
        event.data.nope;
        return;
      // @ts-expect-error TS2678: a type the projection does not read is no case of its switch
      case 'EventCaptured':
        return;
      case 'FeatureFlagUpdated':
      case 'FeatureFlagDeleted':
        // @ts-expect-error TS2339: narrowed: an update carries no createdBy
        event.data.createdBy;
        return;
      default:
        event satisfies never;
    }
  },
});

export const parts = defineProjection({
  ...base,
  reads: [EventCaptured, EventsCaptured],
  async apply() {},
  parts: (event) => (event.type === 'EventsCaptured' ? event.data.events.length : 0),
  async applyPart(event) {
    // @ts-expect-error TS2339: the union is not narrowed yet: an EventCaptured has no events
    event.data.events;
  },
  async quarantined(event) {
    // @ts-expect-error TS2367: neither contract read is a flag's
    if (event.type === 'FeatureFlagCreated') return;
  },
});

// The runner holds them erased, without a cast.
export const erased: readonly ReadModelProjection[] = [narrowing, parts];

export const deciderOfAnotherStream: Decider<{ type: 'Nothing' }, FeatureFlagEvent, null> = {
  // @ts-expect-error TS2322: a cohort's contract does not type a flag's events
  events: [FeatureFlagCreated, CohortCreated],
  initialState: () => null,
  evolve: (state) => state,
  decide: () => [],
};
