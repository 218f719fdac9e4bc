import type { EarlyAccessFields } from '../../streams';

export interface EarlyAccessCreate {
  fields: EarlyAccessFields;
  /** An existing flag to own instead of creating one. */
  featureFlagId: number | null;
}

export interface EarlyAccessUpdate {
  changes: Partial<EarlyAccessFields>;
  /** Going to general availability with `rollout_to_all`: release the flag to everyone. */
  rolloutToAll: boolean;
}
