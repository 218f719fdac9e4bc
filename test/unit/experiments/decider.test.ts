import { describe, it } from 'vitest';
import type { ExperimentEvent } from '../../../streams';
import { experimentDecider } from '../../../src/experiments';
import { spec } from '../../support/decider-spec';

const ids = { experimentId: 7, projectId: 1 };
const created = (over: Partial<Extract<ExperimentEvent, { type: 'ExperimentCreated' }>['data']> = {}): ExperimentEvent => ({
  type: 'ExperimentCreated',
  data: {
    ...ids,
    name: 'E',
    description: '',
    startDate: null,
    endDate: null,
    featureFlagKey: 'k',
    parameters: null,
    secondaryMetrics: [],
    filters: {},
    archived: false,
    createdBy: 1,
    ...over,
  },
});
const fields = { name: 'E', description: '', startDate: null, endDate: null, featureFlagKey: 'k', parameters: null, secondaryMetrics: [], filters: {}, archived: false };
const three = { feature_flag_variants: [{ key: 'control', rollout_percentage: 34 }, { key: 'a', rollout_percentage: 33 }, { key: 'b', rollout_percentage: 33 }] };

describe('experiment decider', () => {
  it('creates once per id; a taken id is a conflict (withNextId then tries the next)', () => {
    spec(experimentDecider)
      .given([])
      .when({ type: 'CreateExperiment', ...ids, createdBy: 1, ...fields })
      .then([created()]);
    spec(experimentDecider).given([created()]).when({ type: 'CreateExperiment', ...ids, createdBy: 1, ...fields }).thenThrows('conflict');
  });

  it('records only the fields that changed, null included', () => {
    spec(experimentDecider)
      .given([created({ endDate: '2024-01-02T00:00:00.000Z' })])
      .when({ type: 'UpdateExperiment', changes: { name: 'E', description: 'new', endDate: null, filters: {} } })
      .then([{ type: 'ExperimentUpdated', data: { ...ids, description: 'new', endDate: null } }]);
    spec(experimentDecider).given([created()]).when({ type: 'UpdateExperiment', changes: { name: 'E', archived: false } }).thenNothing();
  });

  it('freezes the variants once started, judged against the variants the flag was given', () => {
    const started = created({ parameters: three, startDate: '2024-01-01T00:00:00.000Z' });
    spec(experimentDecider)
      .given([started])
      .when({ type: 'UpdateExperiment', changes: { parameters: { feature_flag_variants: three.feature_flag_variants.slice(0, 2) } } })
      .thenThrows('validation', "Can't update feature_flag_variants on Experiment");
    spec(experimentDecider)
      .given([started])
      .when({ type: 'UpdateExperiment', changes: { parameters: { ...three, minimum_detectable_effect: 3 } } })
      .then([{ type: 'ExperimentUpdated', data: { ...ids, parameters: { ...three, minimum_detectable_effect: 3 } } }]);
    // A draft re-created the flag's variants with new parameters; after launch those are the frozen ones.
    spec(experimentDecider)
      .given([created(), { type: 'ExperimentUpdated', data: { ...ids, parameters: three } }, { type: 'ExperimentUpdated', data: { ...ids, startDate: '2024-01-01T00:00:00.000Z' } }])
      .when({ type: 'UpdateExperiment', changes: { parameters: null } }) // no variants named: not a change of variants
      .then([{ type: 'ExperimentUpdated', data: { ...ids, parameters: null } }]);
    spec(experimentDecider)
      .given([created(), { type: 'ExperimentUpdated', data: { ...ids, parameters: three } }, { type: 'ExperimentUpdated', data: { ...ids, startDate: '2024-01-01T00:00:00.000Z' } }])
      .when({ type: 'UpdateExperiment', changes: { parameters: { feature_flag_variants: [] } } })
      .thenThrows('validation', /feature_flag_variants/);
  });

  it('links one exposure cohort, only once started', () => {
    spec(experimentDecider).given([created()]).when({ type: 'SetExposureCohort', cohortId: 3 }).thenThrows('validation', 'Experiment does not have a start date');
    const started = created({ startDate: '2024-01-01T00:00:00.000Z' });
    spec(experimentDecider)
      .given([started])
      .when({ type: 'SetExposureCohort', cohortId: 3 })
      .then([{ type: 'ExperimentExposureCohortSet', data: { ...ids, cohortId: 3 } }]);
    spec(experimentDecider)
      .given([started, { type: 'ExperimentExposureCohortSet', data: { ...ids, cohortId: 3 } }])
      .when({ type: 'SetExposureCohort', cohortId: 4 })
      .thenThrows('validation', 'Experiment already has an exposure cohort');
  });

  it('deleted and abandoned experiments are gone for every command; abandoning is idempotent', () => {
    const gone: ExperimentEvent[][] = [
      [created(), { type: 'ExperimentDeleted', data: ids }],
      [created(), { type: 'ExperimentCreationAbandoned', data: { ...ids, reason: 'r' } }],
      [],
    ];
    for (const history of gone) {
      spec(experimentDecider).given(history).when({ type: 'UpdateExperiment', changes: { name: 'x' } }).thenThrows('not_found');
      spec(experimentDecider).given(history).when({ type: 'DeleteExperiment' }).thenThrows('not_found');
      spec(experimentDecider).given(history).when({ type: 'SetExposureCohort', cohortId: 1 }).thenThrows('not_found');
    }
    spec(experimentDecider)
      .given([created()])
      .when({ type: 'AbandonCreation', reason: 'key taken' })
      .then([{ type: 'ExperimentCreationAbandoned', data: { ...ids, reason: 'key taken' } }]);
    spec(experimentDecider).given(gone[1]).when({ type: 'AbandonCreation', reason: 'again' }).thenNothing();
    spec(experimentDecider).given([created()]).when({ type: 'DeleteExperiment' }).then([{ type: 'ExperimentDeleted', data: ids }]);
  });
});
