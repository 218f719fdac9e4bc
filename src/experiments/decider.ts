import { experimentEvents, type ExperimentEvent, type ExperimentUpdatedData, type SavedMetricLink } from '../../streams';
import { stableJson } from '../../projections/json';
import { conflict, notFound, validationError } from '../errors';
import type { Decider } from '../runtime/decider';
import { CURRENT_FIELD_DEFAULTS, type CreateExperimentInput, type ExperimentFields, type UpdateExperimentInput } from './input';
import { checkVariantsFrozen, experimentVariants } from './variants';

export interface ExperimentState extends ExperimentFields {
  exists: boolean;
  deleted: boolean;
  abandoned: boolean;
  experimentId: number;
  projectId: number;
  featureFlagKey: string;
  exposureCohort: number | null;
  /** The variant keys the linked flag was given (frozen once the experiment has started). */
  variantKeys: string[];
  /** The linked saved metrics as last set (a deleted saved metric's link is dropped by the read model). */
  savedMetrics: SavedMetricLink[];
  /** Events in the stream, as the read model's `version` counts them. */
  version: number;
}

export type ExperimentCommand =
  | ({ type: 'CreateExperiment'; experimentId: number; projectId: number; createdBy: number | null } & CreateExperimentInput)
  | { type: 'UpdateExperiment'; changes: UpdateExperimentInput }
  | { type: 'SetExposureCohort'; cohortId: number }
  | { type: 'DeleteExperiment' }
  | { type: 'AbandonCreation'; reason: string };

const initial = (): ExperimentState => ({
  exists: false,
  deleted: false,
  abandoned: false,
  experimentId: 0,
  projectId: 0,
  name: '',
  description: '',
  startDate: null,
  endDate: null,
  featureFlagKey: '',
  parameters: null,
  secondaryMetrics: null,
  filters: null,
  archived: false,
  ...CURRENT_FIELD_DEFAULTS,
  metrics: [],
  metricsSecondary: [],
  primaryMetricsOrderedUuids: [],
  secondaryMetricsOrderedUuids: [],
  exposureCohort: null,
  variantKeys: [],
  savedMetrics: [],
  version: 0,
});

/** Stored parameters were validated before the append; a value that no longer parses keeps the old keys. */
function keysOr(parameters: unknown, fallback: string[]): string[] {
  try {
    return experimentVariants(parameters).map((v) => v.key);
  } catch {
    return fallback;
  }
}

const FIELDS: (keyof UpdateExperimentInput)[] = [
  'name',
  'description',
  'startDate',
  'endDate',
  'parameters',
  'secondaryMetrics',
  'filters',
  'archived',
  'metrics',
  'metricsSecondary',
  'primaryMetricsOrderedUuids',
  'secondaryMetricsOrderedUuids',
  'statsConfig',
  'exposureCriteria',
  'conclusion',
  'conclusionComment',
  'savedMetrics',
];
const same = (a: unknown, b: unknown) => stableJson(a ?? null) === stableJson(b ?? null);
const visible = (s: ExperimentState) => s.exists && !s.deleted && !s.abandoned;

/** What one event changes; `version` is counted once for all of them in `evolve`. */
function apply(s: ExperimentState, e: ExperimentEvent): ExperimentState {
  switch (e.type) {
    case 'ExperimentCreated': {
      const { createdBy: _c, ...d } = e.data;
      return {
        ...s,
        ...d,
        parameters: d.parameters ?? null,
        secondaryMetrics: d.secondaryMetrics ?? null,
        filters: d.filters ?? null,
        metrics: d.metrics ?? [],
        metricsSecondary: d.metricsSecondary ?? [],
        primaryMetricsOrderedUuids: d.primaryMetricsOrderedUuids ?? [],
        secondaryMetricsOrderedUuids: d.secondaryMetricsOrderedUuids ?? [],
        statsConfig: d.statsConfig ?? null,
        exposureCriteria: d.exposureCriteria ?? null,
        conclusion: d.conclusion ?? null,
        conclusionComment: d.conclusionComment ?? null,
        savedMetrics: d.savedMetrics ?? [],
        exists: true,
        variantKeys: keysOr(d.parameters, ['control', 'test']),
      };
    }
    case 'ExperimentUpdated': {
      const { experimentId: _e, projectId: _p, ...changes } = e.data;
      // While a draft, new parameters re-create the flag's variants (absent ones mean the default).
      const variantKeys = 'parameters' in changes && s.startDate === null ? keysOr(changes.parameters, s.variantKeys) : s.variantKeys;
      return { ...s, ...changes, variantKeys };
    }
    case 'ExperimentExposureCohortSet':
      return { ...s, exposureCohort: e.data.cohortId };
    case 'ExperimentDeleted':
      return { ...s, deleted: true };
    case 'ExperimentCreationAbandoned':
      return { ...s, abandoned: true };
  }
}

/**
 * An experiment: created once per id, then updated (only what changed is recorded), linked to one
 * exposure cohort, soft-deleted, or abandoned when its flag could not be created.
 */
export const experimentDecider: Decider<ExperimentCommand, ExperimentEvent, ExperimentState> = {
  events: experimentEvents,
  initialState: initial,
  evolve: (s, e) => ({ ...apply(s, e), version: s.version + 1 }),
  decide: (c, s) => {
    const ids = { experimentId: s.experimentId, projectId: s.projectId };
    switch (c.type) {
      case 'CreateExperiment': {
        // Another create claimed this id first: withNextId moves on to the next one.
        if (s.exists) throw conflict(`experiment ${c.experimentId} already exists`);
        const { type: _t, ...data } = c;
        return [{ type: 'ExperimentCreated', data }];
      }
      case 'UpdateExperiment': {
        if (!visible(s)) throw notFound();
        checkVariantsFrozen(s.startDate !== null, s.variantKeys, c.changes.parameters);
        const changed: Partial<ExperimentUpdatedData> = {};
        for (const field of FIELDS) {
          if (!(field in c.changes) || same(c.changes[field], s[field])) continue;
          (changed as Record<string, unknown>)[field] = c.changes[field];
        }
        if (Object.keys(changed).length === 0) return [];
        return [{ type: 'ExperimentUpdated', data: { ...ids, ...changed } }];
      }
      case 'SetExposureCohort':
        if (!visible(s)) throw notFound();
        if (s.startDate === null) throw validationError('Experiment does not have a start date');
        if (s.exposureCohort !== null) throw validationError('Experiment already has an exposure cohort');
        return [{ type: 'ExperimentExposureCohortSet', data: { ...ids, cohortId: c.cohortId } }];
      case 'DeleteExperiment':
        if (!visible(s)) throw notFound();
        return [{ type: 'ExperimentDeleted', data: ids }];
      case 'AbandonCreation':
        if (!s.exists || s.abandoned) return [];
        return [{ type: 'ExperimentCreationAbandoned', data: { ...ids, reason: c.reason } }];
    }
  },
};
