import { featureFlagEvents, type FeatureFlagEvent } from '../../../streams';
import { notFound, validationError } from '../../errors';
import type { Decider } from '../../runtime/decider';
import type { FlagFilters } from '../types';

export interface FlagState {
  exists: boolean;
  deleted: boolean;
  projectId: number;
  key: string;
  name: string;
  filters: Record<string, unknown>;
  active: boolean;
  ensureExperienceContinuity: boolean;
  version: number;
}

export type FlagCommand =
  | {
      type: 'CreateFlag';
      projectId: number;
      key: string;
      name: string;
      filters: FlagFilters;
      active: boolean;
      ensureExperienceContinuity: boolean;
      createdBy: number | null;
      experimentId: number | null;
    }
  | {
      type: 'UpdateFlag';
      name?: string;
      filters?: FlagFilters;
      active?: boolean;
      ensureExperienceContinuity?: boolean;
    }
  | { type: 'DeleteFlag' };

const initial = (): FlagState => ({
  exists: false,
  deleted: false,
  projectId: 0,
  key: '',
  name: '',
  filters: {},
  active: false,
  ensureExperienceContinuity: false,
  version: 0,
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A feature flag: created once per (project, key); updates only record what changed; delete is soft. */
export const flagDecider: Decider<FlagCommand, FeatureFlagEvent, FlagState> = {
  events: featureFlagEvents,
  initialState: initial,
  evolve: (s, e) => {
    switch (e.type) {
      case 'FeatureFlagCreated':
        return {
          ...s,
          exists: true,
          projectId: e.data.projectId,
          key: e.data.key,
          name: e.data.name,
          filters: e.data.filters,
          active: e.data.active,
          ensureExperienceContinuity: e.data.ensureExperienceContinuity,
          version: 1,
        };
      case 'FeatureFlagUpdated':
        return {
          ...s,
          name: e.data.name ?? s.name,
          filters: e.data.filters ?? s.filters,
          active: e.data.active ?? s.active,
          ensureExperienceContinuity: e.data.ensureExperienceContinuity ?? s.ensureExperienceContinuity,
          version: s.version + 1,
        };
      case 'FeatureFlagDeleted':
        return { ...s, deleted: true, active: false, version: s.version + 1 };
    }
  },
  decide: (c, s) => {
    switch (c.type) {
      case 'CreateFlag': {
        if (s.exists) throw conflictKey();
        const { type: _t, filters, ...rest } = c;
        return [{ type: 'FeatureFlagCreated', data: { ...rest, filters: filters as Record<string, unknown> } }];
      }
      case 'UpdateFlag': {
        if (!s.exists || s.deleted) throw notFound();
        const changes: { name?: string; filters?: Record<string, unknown>; active?: boolean; ensureExperienceContinuity?: boolean } = {};
        if (c.name !== undefined && c.name !== s.name) changes.name = c.name;
        if (c.filters !== undefined && !same(c.filters, s.filters)) changes.filters = c.filters as Record<string, unknown>;
        if (c.active !== undefined && c.active !== s.active) changes.active = c.active;
        if (c.ensureExperienceContinuity !== undefined && c.ensureExperienceContinuity !== s.ensureExperienceContinuity)
          changes.ensureExperienceContinuity = c.ensureExperienceContinuity;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'FeatureFlagUpdated', data: { projectId: s.projectId, key: s.key, ...changes } }];
      }
      case 'DeleteFlag':
        if (!s.exists || s.deleted) throw notFound();
        return [{ type: 'FeatureFlagDeleted', data: { projectId: s.projectId, key: s.key } }];
    }
  },
};

/**
 * PostHog reports a taken key as a field validation error (400, code `unique`, attr `key`), not as
 * a 409; clients (and the PostHog UI) show it next to the key field. Soft-deleted flags keep theirs.
 */
export function conflictKey() {
  return validationError('There is already a feature flag with this key.', 'key', 'unique');
}
