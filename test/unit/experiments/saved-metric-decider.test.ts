import { describe, it } from 'vitest';
import type { ExperimentEvent, ExperimentSavedMetricEvent, SavedMetricFields } from '../../../streams';
import { experimentDecider } from '../../../src/experiments/decider';
import { savedMetricDecider } from '../../../src/experiments/saved-metrics/decider';
import { spec } from '../../support/decider-spec';

const ids = { savedMetricId: 3, projectId: 1 };
const query = { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }], uuid: 'u-1' };
const fields: SavedMetricFields = { name: 'Purchases', description: null, query, tags: [] };
const create = { type: 'CreateSavedMetric' as const, ...ids, fields, createdBy: 5 };
const created: ExperimentSavedMetricEvent = { type: 'ExperimentSavedMetricCreated', data: { ...ids, fields, createdBy: 5 } };
const deleted: ExperimentSavedMetricEvent = { type: 'ExperimentSavedMetricDeleted', data: ids };

describe('saved experiment metric decider', () => {
  it('creates a saved metric once per id (a second create moves withNextId on)', () => {
    spec(savedMetricDecider).given([]).when(create).then([created]);
    spec(savedMetricDecider).given([created]).when(create).thenThrows('conflict');
  });

  it('records only the fields that changed; nothing when none did (key order inside a query is no change)', () => {
    spec(savedMetricDecider)
      .given([created])
      .when({ type: 'UpdateSavedMetric', changes: { name: 'Purchases', description: 'who buys', query: Object.fromEntries(Object.entries(query).reverse()) } })
      .then([{ type: 'ExperimentSavedMetricUpdated', data: { ...ids, changes: { description: 'who buys' } } }]);
    spec(savedMetricDecider).given([created]).when({ type: 'UpdateSavedMetric', changes: { name: 'Purchases', tags: [] } }).thenNothing();
  });

  it('a later change compares with the state the updates left', () => {
    const renamed: ExperimentSavedMetricEvent = { type: 'ExperimentSavedMetricUpdated', data: { ...ids, changes: { name: 'Buyers' } } };
    spec(savedMetricDecider).given([created, renamed]).when({ type: 'UpdateSavedMetric', changes: { name: 'Buyers' } }).thenNothing();
    spec(savedMetricDecider)
      .given([created, renamed])
      .when({ type: 'UpdateSavedMetric', changes: { name: 'Purchases' } })
      .then([{ type: 'ExperimentSavedMetricUpdated', data: { ...ids, changes: { name: 'Purchases' } } }]);
  });

  it('deletes once; a deleted or unknown metric takes no command', () => {
    spec(savedMetricDecider).given([created]).when({ type: 'DeleteSavedMetric' }).then([deleted]);
    spec(savedMetricDecider).given([created, deleted]).when({ type: 'DeleteSavedMetric' }).thenThrows('not_found');
    spec(savedMetricDecider).given([created, deleted]).when({ type: 'UpdateSavedMetric', changes: { name: 'x' } }).thenThrows('not_found');
    spec(savedMetricDecider).given([]).when({ type: 'UpdateSavedMetric', changes: { name: 'x' } }).thenThrows('not_found');
  });
});

describe('experiment decider: links to saved metrics', () => {
  const exp = { experimentId: 9, projectId: 1 };
  const link = { savedMetricId: 3, metadata: { type: 'primary' } };
  const experimentCreated: ExperimentEvent = {
    type: 'ExperimentCreated',
    data: { ...exp, name: 'E', description: '', startDate: null, endDate: null, featureFlagKey: 'e', archived: false, createdBy: null, savedMetrics: [link] },
  };

  it('records a changed list of links, and nothing for the same list', () => {
    spec(experimentDecider).given([experimentCreated]).when({ type: 'UpdateExperiment', changes: { savedMetrics: [link] } }).thenNothing();
    const both = [link, { savedMetricId: 4, metadata: { type: 'secondary' } }];
    spec(experimentDecider)
      .given([experimentCreated])
      .when({ type: 'UpdateExperiment', changes: { savedMetrics: both } })
      .then([{ type: 'ExperimentUpdated', data: { ...exp, savedMetrics: both } }]);
    spec(experimentDecider)
      .given([experimentCreated])
      .when({ type: 'UpdateExperiment', changes: { savedMetrics: [] } })
      .then([{ type: 'ExperimentUpdated', data: { ...exp, savedMetrics: [] } }]);
  });
});
